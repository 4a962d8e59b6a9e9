//! The run, the same for both servers: open every subscription, then
//! publish on a schedule through the warmup and the measured window.
//!
//! One task paces the publishes and starts each as its own task, holding
//! one of `--publishers-in-flight` permits until it is acknowledged: at a
//! fixed rate, message i is due at start + i / rate and timed from then,
//! late or not (open loop, as wrk2 times requests); at rate 0 it goes as
//! soon as a permit is free, and is timed from then. Publishes start in
//! the order they are numbered, but with many in flight they may reach the
//! connection in another (`order` tells the two apart).

use std::{
    rc::Rc,
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use bytes::Bytes;
use jiffy_bench_server::cpu::{self, CpuTicks, MachineTicks};
use tokio::sync::Semaphore;

use crate::{
    args::{Args, Target},
    jiffy,
    message::Header,
    redis,
    stats::{Phase, Shared, Stats},
};

enum Publisher {
    Jiffy(jiffy::Publisher),
    Redis(redis::Publisher),
}

impl Publisher {
    async fn publish(&self, message: Bytes) -> Result<(), String> {
        match self {
            Publisher::Jiffy(publisher) => publisher.publish(message).await,
            Publisher::Redis(publisher) => publisher.publish(message).await,
        }
    }
}

/// Everything read at one end of the window, with no await in between.
pub struct Readings {
    pub server: Option<CpuTicks>,
    pub client: CpuTicks,
    /// Time the server's threads, and ours, waited for their core.
    pub server_wait: Option<Duration>,
    pub client_wait: Duration,
    pub machine: MachineTicks,
    pub at: Instant,
    pub unix_ms: u128,
}

impl Readings {
    fn take(args: &Args) -> Result<Self, String> {
        let server = args
            .server_pid
            .map(|pid| CpuTicks::of(Some(pid)).map_err(|e| format!("server pid {pid}: {e}")))
            .transpose()?;
        let server_wait = args
            .server_pid
            .map(|pid| cpu::runqueue_wait(Some(pid)).map_err(|e| format!("server pid {pid}: {e}")))
            .transpose()?;
        Ok(Readings {
            server,
            client: CpuTicks::of(None).map_err(|e| format!("/proc/self/stat: {e}"))?,
            server_wait,
            client_wait: cpu::runqueue_wait(None).map_err(|e| format!("/proc/self/task: {e}"))?,
            machine: MachineTicks::read().map_err(|e| format!("/proc/stat: {e}"))?,
            at: Instant::now(),
            unix_ms: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
        })
    }
}

pub struct Outcome {
    pub stats: Stats,
    pub start: Readings,
    pub end: Readings,
}

/// Runs warmup then the measured window; must be called inside a `LocalSet`.
pub async fn run(args: &Args) -> Result<Outcome, String> {
    let shared = Rc::new(Shared::new());
    let publisher = Rc::new(open(args, &shared).await?);

    let started = Instant::now();
    let pacer = tokio::task::spawn_local(publish_loop(
        args.clone(),
        Rc::clone(&shared),
        publisher,
        started,
    ));
    tokio::time::sleep_until((started + args.warmup()).into()).await;
    let start = Readings::take(args)?;
    shared.set_phase(Phase::Measuring);
    tokio::time::sleep_until((start.at + args.duration()).into()).await;
    let end = Readings::take(args)?;
    shared.set_phase(Phase::Done);
    pacer.abort();
    Ok(Outcome {
        stats: shared.take(),
        start,
        end,
    })
}

/// The publisher's connection, and every subscription open and reading.
async fn open(args: &Args, shared: &Rc<Shared>) -> Result<Publisher, String> {
    match args.target {
        Target::Jiffy => {
            let names = jiffy::Names {
                cache: args.cache.clone(),
                topic: args.topic.clone(),
            };
            let publisher = jiffy::Publisher::connect(args, names.clone()).await?;
            for _ in 0..args.subscribers {
                let subscriber = jiffy::Subscriber::open(args, names.clone()).await?;
                tokio::task::spawn_local(subscriber.run(Rc::clone(shared)));
            }
            Ok(Publisher::Jiffy(publisher))
        }
        Target::Redis => {
            let publisher = redis::Publisher::connect(args, args.topic.clone()).await?;
            for _ in 0..args.subscribers {
                let subscriber = redis::Subscriber::open(args, args.topic.clone()).await?;
                tokio::task::spawn_local(subscriber.run(Rc::clone(shared)));
            }
            publisher.wait_for(args.subscribers).await?;
            Ok(Publisher::Redis(publisher))
        }
    }
}

async fn publish_loop(args: Args, shared: Rc<Shared>, publisher: Rc<Publisher>, started: Instant) {
    let permits = Arc::new(Semaphore::new(args.publishers_in_flight));
    let interval = args.interval();
    for number in 0u64.. {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            return;
        };
        let due = match interval {
            Some(interval) => {
                let due = started + interval.mul_f64(number as f64);
                tokio::time::sleep_until(due.into()).await;
                due
            }
            None => Instant::now(),
        };
        if shared.done() {
            return;
        }
        let (shared, publisher) = (Rc::clone(&shared), Rc::clone(&publisher));
        let size = args.value_size;
        tokio::task::spawn_local(async move {
            let sent = Instant::now();
            let header = Header { due, sent, number };
            let result = publisher.publish(header.encode(shared.base, size)).await;
            shared.published(due, result);
            drop(permit);
        });
    }
}
