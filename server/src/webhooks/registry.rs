//! The webhooks of this server, by cache: each with its secret and the task
//! that delivers its topic's messages (`deliver`). With the embedded store
//! they are kept here, with its caches: a webhook goes when its cache is
//! deleted. Over Redis they are kept in the store (`shared`), and what is
//! here follows it: every front-end runs a task per webhook, and the one
//! holding the webhook's lease delivers.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use http::Uri;
use parking_lot::{Mutex, RwLock};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::deliver::{self, Always, Poster, Source};
use super::shared::{Definition, Lease, SharedWebhooks, SYNC_INTERVAL};
use super::sign::new_secret;
use super::{WebhookMetrics, WebhookSettings, MAX_NAME_LEN, MAX_URL_LEN, MAX_WEBHOOKS_PER_CACHE};
use crate::error::Error;
use crate::topics::{check_topic_name, Resume, Subscription, TopicStore};

/// One webhook, as its delivery task reads it.
pub struct Hook {
    pub cache: String,
    pub name: String,
    pub topic: String,
    pub url: String,
    pub uri: Uri,
    /// Rotated in place: the task signs each attempt with the secret of the
    /// moment.
    pub secret: RwLock<String>,
}

impl Hook {
    pub fn secret(&self) -> String {
        self.secret.read().clone()
    }
}

struct Entry {
    hook: Arc<Hook>,
    task: AbortHandle,
    /// Which put made it: a task that ends forgets its own entry only, not
    /// one put since.
    generation: u64,
    /// Over Redis, the definition's id in the store (empty otherwise).
    id: String,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub struct Webhooks<T> {
    topics: T,
    settings: WebhookSettings,
    poster: Arc<Poster>,
    metrics: WebhookMetrics,
    /// Cache name -> webhook name -> webhook.
    caches: Mutex<HashMap<String, HashMap<String, Entry>>>,
    generations: AtomicU64,
    /// Set when the server shuts down: the tasks end.
    pub(super) stop: watch::Receiver<bool>,
    /// Over Redis, where the webhooks are kept; `caches` then holds this
    /// front-end's tasks, following the store every [`SYNC_INTERVAL`].
    shared: Option<Arc<dyn SharedWebhooks>>,
}

impl<T: TopicStore + Clone> Webhooks<T> {
    pub fn new(
        topics: T,
        settings: WebhookSettings,
        metrics: WebhookMetrics,
        stop: watch::Receiver<bool>,
        shared: Option<Arc<dyn SharedWebhooks>>,
    ) -> Arc<Self> {
        let webhooks = Arc::new(Webhooks {
            poster: Arc::new(Poster::new(
                Arc::new(settings.allow.clone()),
                metrics.clone(),
            )),
            topics,
            settings,
            metrics,
            caches: Mutex::new(HashMap::new()),
            generations: AtomicU64::new(0),
            stop,
            shared,
        });
        if webhooks.shared.is_some() {
            tokio::spawn(follow_store(Arc::downgrade(&webhooks)));
        }
        webhooks
    }

    pub(super) fn topics(&self) -> &T {
        &self.topics
    }

    pub(super) fn poster(&self) -> &Arc<Poster> {
        &self.poster
    }

    /// Creates or replaces the webhook `name` of `cache`, and answers its
    /// secret: a new one for a new webhook, the same for a replaced one.
    /// Delivery starts with the messages published after the answer.
    pub async fn put(
        self: &Arc<Self>,
        cache: &str,
        name: &str,
        topic: &str,
        url: &str,
    ) -> Result<String, Error> {
        check_name(name)?;
        check_topic_name(topic)?;
        let uri = self.check_url(url).await?;
        if let Some(shared) = &self.shared {
            let mut definition = Definition {
                cache: cache.to_owned(),
                name: name.to_owned(),
                topic: topic.to_owned(),
                url: url.to_owned(),
                secret: new_secret(),
                id: new_secret(),
            };
            let (secret, id) = shared.put(&definition, MAX_WEBHOOKS_PER_CACHE).await?;
            definition.secret = secret.clone();
            definition.id = id;
            // This front-end competes for its lease at once, the others
            // within a sync.
            self.follow(shared, definition);
            return Ok(secret);
        }
        let secret = {
            let caches = self.caches.lock();
            let hooks = caches.get(cache);
            match hooks.and_then(|hooks| hooks.get(name)) {
                Some(entry) if entry.hook.topic == topic && entry.hook.url == url => {
                    return Ok(entry.hook.secret())
                }
                Some(entry) => entry.hook.secret(),
                None => {
                    if hooks.map_or(0, HashMap::len) >= MAX_WEBHOOKS_PER_CACHE {
                        return Err(Error::TooManyWebhooks {
                            cache: cache.to_owned(),
                            limit: MAX_WEBHOOKS_PER_CACHE,
                        });
                    }
                    new_secret()
                }
            }
        };
        // Subscribed before answering: whatever is published once the
        // caller hears back is delivered.
        let subscription = self
            .topics
            .subscribe(cache, topic, Resume::default())
            .await?;
        let hook = Arc::new(Hook {
            cache: cache.to_owned(),
            name: name.to_owned(),
            topic: topic.to_owned(),
            url: url.to_owned(),
            uri,
            secret: RwLock::new(secret.clone()),
        });
        self.start(hook, String::new(), Always, Some(subscription));
        Ok(secret)
    }

    /// Starts the delivery task of `hook`, in place of the one of the same
    /// name if any.
    fn start<S: Source + 'static>(
        self: &Arc<Self>,
        hook: Arc<Hook>,
        id: String,
        source: S,
        first: Option<Subscription>,
    ) {
        let generation = self.generations.fetch_add(1, Ordering::Relaxed);
        let task = tokio::spawn(deliver::run(
            self.clone(),
            hook.clone(),
            generation,
            source,
            first,
        ))
        .abort_handle();
        let mut caches = self.caches.lock();
        let hooks = caches.entry(hook.cache.clone()).or_default();
        let before = hooks.insert(
            hook.name.clone(),
            Entry {
                hook,
                task,
                generation,
                id,
            },
        );
        if before.is_none() {
            self.metrics.webhooks.inc();
        }
        drop(caches);
        drop(before);
    }

    /// Over Redis: runs a task for `definition` if none runs for it yet, and
    /// signs with its secret from now on.
    fn follow(self: &Arc<Self>, shared: &Arc<dyn SharedWebhooks>, definition: Definition) {
        {
            let caches = self.caches.lock();
            let entry = caches
                .get(&definition.cache)
                .and_then(|hooks| hooks.get(&definition.name));
            if let Some(entry) = entry.filter(|entry| entry.id == definition.id) {
                if *entry.hook.secret.read() != definition.secret {
                    *entry.hook.secret.write() = definition.secret;
                }
                return;
            }
        }
        let Ok(uri) = definition.url.parse::<Uri>() else {
            tracing::warn!(cache = %definition.cache, webhook = %definition.name, "a stored webhook's URL does not parse; not delivered");
            return;
        };
        let hook = Arc::new(Hook {
            cache: definition.cache.clone(),
            name: definition.name.clone(),
            topic: definition.topic.clone(),
            url: definition.url.clone(),
            uri,
            secret: RwLock::new(definition.secret.clone()),
        });
        let id = definition.id.clone();
        let lease = Lease::new(shared.clone(), definition, self.metrics.clone());
        self.start(hook, id, lease, None);
    }

    /// Over Redis, once the server stops: waits (at most `within`) until
    /// every lease this front-end held is handed over with its exact
    /// position, so that the next holder sends nothing twice.
    pub async fn handed_over(&self, within: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + within;
        // The gauge is what each lease's release brings down; polled, as
        // this happens once, at shutdown.
        while self.metrics.leases.get() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// Over Redis: ends the tasks of webhooks the store no longer has (or
    /// has under another id), and follows the others. Tasks started since
    /// `read_from` (the generation when the store was read: by a put on
    /// this front-end meanwhile) are left running.
    fn follow_all(
        self: &Arc<Self>,
        shared: &Arc<dyn SharedWebhooks>,
        all: Vec<Definition>,
        read_from: u64,
    ) {
        let kept: HashSet<(&str, &str, &str)> = all
            .iter()
            .map(|d| (d.cache.as_str(), d.name.as_str(), d.id.as_str()))
            .collect();
        let mut ended = Vec::new();
        {
            let mut caches = self.caches.lock();
            caches.retain(|cache, hooks| {
                hooks.retain(|name, entry| {
                    let keep = entry.generation >= read_from
                        || kept.contains(&(cache.as_str(), name.as_str(), entry.id.as_str()));
                    if !keep {
                        ended.push(entry.task.clone());
                        self.metrics.webhooks.dec();
                    }
                    keep
                });
                !hooks.is_empty()
            });
        }
        for task in ended {
            task.abort();
        }
        for definition in all {
            let newer = self
                .caches
                .lock()
                .get(&definition.cache)
                .is_some_and(|hooks| {
                    hooks
                        .get(&definition.name)
                        .is_some_and(|entry| entry.generation >= read_from)
                });
            if !newer {
                self.follow(shared, definition);
            }
        }
    }

    /// Deletes a webhook; one that is not there is already deleted.
    pub async fn delete(&self, cache: &str, name: &str) -> Result<(), Error> {
        if let Some(shared) = &self.shared {
            shared.delete(cache, name).await?;
        }
        let removed = {
            let mut caches = self.caches.lock();
            let removed = caches.get_mut(cache).and_then(|hooks| hooks.remove(name));
            if caches.get(cache).is_some_and(HashMap::is_empty) {
                caches.remove(cache);
            }
            removed
        };
        if removed.is_some() {
            self.metrics.webhooks.dec();
        }
        Ok(())
    }

    /// The webhooks of `cache`, by name: (name, topic, url).
    pub async fn list(&self, cache: &str) -> Result<Vec<(String, String, String)>, Error> {
        let mut hooks: Vec<_> = match &self.shared {
            Some(shared) => shared
                .of_cache(cache)
                .await?
                .into_iter()
                .map(|d| (d.name, d.topic, d.url))
                .collect(),
            None => {
                let caches = self.caches.lock();
                caches
                    .get(cache)
                    .into_iter()
                    .flat_map(HashMap::values)
                    .map(|entry| {
                        let hook = &entry.hook;
                        (hook.name.clone(), hook.topic.clone(), hook.url.clone())
                    })
                    .collect()
            }
        };
        hooks.sort();
        Ok(hooks)
    }

    fn hook(&self, cache: &str, name: &str) -> Result<Arc<Hook>, Error> {
        self.caches
            .lock()
            .get(cache)
            .and_then(|hooks| hooks.get(name))
            .map(|entry| entry.hook.clone())
            .ok_or_else(|| not_found(cache, name))
    }

    pub async fn secret(&self, cache: &str, name: &str) -> Result<String, Error> {
        match &self.shared {
            Some(shared) => shared
                .of_cache(cache)
                .await?
                .into_iter()
                .find(|d| d.name == name)
                .map(|d| d.secret)
                .ok_or_else(|| not_found(cache, name)),
            None => Ok(self.hook(cache, name)?.secret()),
        }
    }

    /// A new secret, used from the next attempt on (over Redis, by the
    /// front-end delivering it within a sync).
    pub async fn rotate(&self, cache: &str, name: &str) -> Result<String, Error> {
        let secret = new_secret();
        match &self.shared {
            Some(shared) => {
                shared.rotate(cache, name, &secret).await?;
                if let Ok(hook) = self.hook(cache, name) {
                    *hook.secret.write() = secret.clone();
                }
            }
            None => *self.hook(cache, name)?.secret.write() = secret.clone(),
        }
        Ok(secret)
    }

    /// Forgets the webhook a task delivered for, if no put replaced it
    /// since (its cache was deleted).
    pub(super) fn forget(&self, cache: &str, name: &str, generation: u64) {
        let mut caches = self.caches.lock();
        let Some(hooks) = caches.get_mut(cache) else {
            return;
        };
        if hooks
            .get(name)
            .is_some_and(|entry| entry.generation == generation)
        {
            // The task is the caller: dropping its own abort handle is harmless.
            hooks.remove(name);
            self.metrics.webhooks.dec();
        }
        if hooks.is_empty() {
            caches.remove(cache);
        }
    }

    /// A destination URL, checked: http or https, a host, within
    /// [`MAX_URL_LEN`], and resolving to addresses `--webhook-allow` allows.
    async fn check_url(&self, url: &str) -> Result<Uri, Error> {
        if url.len() > MAX_URL_LEN {
            return Err(Error::InvalidArgument(format!(
                "the webhook's URL is {} bytes, over the limit of {MAX_URL_LEN}",
                url.len()
            )));
        }
        let uri: Uri = url
            .parse()
            .map_err(|error| Error::InvalidArgument(format!("the webhook's URL: {error}")))?;
        let port = match uri.scheme_str() {
            Some("http") => 80,
            Some("https") => 443,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "the webhook's URL must be http:// or https://, not {url:?}"
                )))
            }
        };
        let Some(host) = uri.host() else {
            return Err(Error::InvalidArgument(format!(
                "the webhook's URL names no host: {url:?}"
            )));
        };
        self.settings
            .allow
            .resolve(host, uri.port_u16().unwrap_or(port))
            .await
            .map_err(|error| Error::WebhookRefused(error.to_string()))?;
        Ok(uri)
    }
}

/// Over Redis, every front-end's tasks follow the store: one read of every
/// webhook each [`SYNC_INTERVAL`], until the server stops.
async fn follow_store<T: TopicStore + Clone>(webhooks: Weak<Webhooks<T>>) {
    let Some(mut stop) = webhooks.upgrade().map(|webhooks| webhooks.stop.clone()) else {
        return;
    };
    loop {
        tokio::select! {
            _ = tokio::time::sleep(SYNC_INTERVAL) => {}
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
        let Some(webhooks) = webhooks.upgrade() else {
            return;
        };
        let Some(shared) = webhooks.shared.clone() else {
            return;
        };
        let read_from = webhooks.generations.load(Ordering::Relaxed);
        match shared.all().await {
            Ok(all) => webhooks.follow_all(&shared, all, read_from),
            Err(error) => tracing::debug!(%error, "reading the webhooks from the store failed"),
        }
    }
}

fn not_found(cache: &str, name: &str) -> Error {
    Error::WebhookNotFound {
        cache: cache.to_owned(),
        name: name.to_owned(),
    }
}

fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::InvalidArgument("a webhook needs a name".to_owned()));
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(Error::InvalidArgument(format!(
            "the webhook's name is over {MAX_NAME_LEN} characters"
        )));
    }
    Ok(())
}
