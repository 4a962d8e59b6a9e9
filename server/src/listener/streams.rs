//! Where an HTTP/2 connection's calls run: first in the connection's own
//! task, each in a task of its own only if it has to wait.
//!
//! hyper hands every stream it accepts to an executor, which by default
//! spawns it as a task: a task allocated, scheduled, polled and freed per
//! call, and the connection's task woken by it once the answer is queued.
//! A call on the embedded store nearly always answers in its first poll
//! (its request has come whole with its headers, and the store does not
//! wait), so the task is pure overhead. [`Streams`] keeps the streams a
//! poll of the connection accepted and, once that poll ends, polls each of
//! them once in the connection's task ([`Streams::run_accepted`]); a stream
//! that is not done then (a streamed answer, a request body still coming,
//! a store that waits on the network) is spawned as before, and polled
//! again there with a real waker, as a future's contract allows.
//!
//! The streams run after the connection's poll, not as they are accepted:
//! h2 writes and flushes its queued frames each time it runs out of input,
//! which hyper's accept loop makes it do once per stream, so answers queued
//! during the loop would go out one write per call where they now go out
//! together, on the connection's next poll (which their answers' frames
//! wake it for).
//!
//! Over the Redis store every call waits for Redis, so there the streams are
//! spawned at once, as hyper's default executor does (`Streams::spawning`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Waker};

use parking_lot::Mutex;

type Stream = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The executor of one HTTP/2 connection's streams (see the module).
#[derive(Clone)]
pub struct Streams {
    /// Streams accepted and not yet polled; `None` when every stream is
    /// spawned at once.
    accepted: Option<Arc<Mutex<Vec<Stream>>>>,
}

impl Streams {
    /// Streams first polled in the connection's task.
    pub fn inline() -> Self {
        Streams {
            accepted: Some(Arc::default()),
        }
    }

    /// Streams spawned as tasks at once, as hyper's `TokioExecutor` does.
    pub fn spawning() -> Self {
        Streams { accepted: None }
    }

    /// Polls once each stream accepted since the last call, in the caller's
    /// task (the connection's, at the end of its poll, whose context is
    /// `cx`), and spawns those not done. The connection is woken if any
    /// stream ran, so that it writes their answers; h2 wakes it for a
    /// queued answer too, and a task woken twice is polled once.
    pub fn run_accepted(&self, cx: &Context<'_>) {
        let Some(accepted) = &self.accepted else {
            return;
        };
        let mut batch = std::mem::take(&mut *accepted.lock());
        if batch.is_empty() {
            return;
        }
        // Not the connection's waker: a stream left waiting is moved to a
        // task of its own, whose waker its next poll registers.
        let mut first_poll = Context::from_waker(Waker::noop());
        for mut stream in batch.drain(..) {
            if stream.as_mut().poll(&mut first_poll).is_pending() {
                tokio::spawn(stream);
            }
        }
        cx.waker().wake_by_ref();
        // The vector's room is kept for the next batch.
        let mut accepted = accepted.lock();
        if accepted.is_empty() {
            *accepted = batch;
        }
    }
}

impl<F> hyper::rt::Executor<F> for Streams
where
    F: Future<Output = ()> + Send + 'static,
{
    fn execute(&self, stream: F) {
        match &self.accepted {
            Some(accepted) => accepted.lock().push(Box::pin(stream)),
            None => {
                tokio::spawn(stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use hyper::rt::Executor;

    use super::*;

    /// Counts its polls; done at the `ready_at`-th.
    struct Steps {
        polls: Arc<AtomicUsize>,
        ready_at: usize,
    }

    impl Future for Steps {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> std::task::Poll<()> {
            let polls = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
            if polls >= self.ready_at {
                return std::task::Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    fn steps(ready_at: usize) -> (Steps, Arc<AtomicUsize>) {
        let polls = Arc::new(AtomicUsize::new(0));
        let future = Steps {
            polls: polls.clone(),
            ready_at,
        };
        (future, polls)
    }

    #[tokio::test]
    async fn a_stream_runs_in_the_connection_task_and_only_one_that_waits_is_spawned() {
        let streams = Streams::inline();
        let (quick, quick_polls) = steps(1);
        let (slow, slow_polls) = steps(3);
        streams.execute(quick);
        streams.execute(slow);
        // Nothing runs until the connection's poll ends.
        assert_eq!(quick_polls.load(Ordering::SeqCst), 0);
        let woken = Arc::new(WakeCount::default());
        let waker = Waker::from(woken.clone());
        streams.run_accepted(&Context::from_waker(&waker));
        assert_eq!(quick_polls.load(Ordering::SeqCst), 1, "done in one poll");
        assert_eq!(slow_polls.load(Ordering::SeqCst), 1);
        assert_eq!(woken.0.load(Ordering::SeqCst), 1, "the connection is woken");
        // The one that waits finishes in its own task.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert_eq!(slow_polls.load(Ordering::SeqCst), 3);
        // With nothing accepted, nothing runs and nobody is woken.
        streams.run_accepted(&Context::from_waker(&waker));
        assert_eq!(woken.0.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn spawning_streams_run_in_tasks_of_their_own() {
        let streams = Streams::spawning();
        let (quick, polls) = steps(1);
        streams.execute(quick);
        let woken = Arc::new(WakeCount::default());
        streams.run_accepted(&Context::from_waker(&Waker::from(woken.clone())));
        assert_eq!(polls.load(Ordering::SeqCst), 0);
        tokio::task::yield_now().await;
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        assert_eq!(woken.0.load(Ordering::SeqCst), 0);
    }

    #[derive(Default)]
    struct WakeCount(AtomicUsize);

    impl std::task::Wake for WakeCount {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}
