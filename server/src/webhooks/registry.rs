//! The webhooks of this server, by cache: each with its secret and the task
//! that delivers its topic's messages (`deliver`). Kept with the server's
//! caches (the embedded store): a webhook goes when its cache is deleted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use http::Uri;
use parking_lot::{Mutex, RwLock};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::deliver::{self, Poster};
use super::sign::new_secret;
use super::{WebhookMetrics, WebhookSettings, MAX_NAME_LEN, MAX_URL_LEN, MAX_WEBHOOKS_PER_CACHE};
use crate::error::Error;
use crate::topics::{check_topic_name, Resume, TopicStore};

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
}

impl<T: TopicStore + Clone> Webhooks<T> {
    pub fn new(
        topics: T,
        settings: WebhookSettings,
        metrics: WebhookMetrics,
        stop: watch::Receiver<bool>,
    ) -> Arc<Self> {
        Arc::new(Webhooks {
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
        })
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
        let generation = self.generations.fetch_add(1, Ordering::Relaxed);
        let task = tokio::spawn(deliver::run(
            self.clone(),
            hook.clone(),
            generation,
            subscription,
        ))
        .abort_handle();
        let mut caches = self.caches.lock();
        let hooks = caches.entry(cache.to_owned()).or_default();
        let before = hooks.insert(
            name.to_owned(),
            Entry {
                hook,
                task,
                generation,
            },
        );
        if before.is_none() {
            self.metrics.webhooks.inc();
        }
        drop(caches);
        drop(before);
        Ok(secret)
    }

    /// Deletes a webhook; one that is not there is already deleted.
    pub fn delete(&self, cache: &str, name: &str) {
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
    }

    /// The webhooks of `cache`, by name: (name, topic, url).
    pub fn list(&self, cache: &str) -> Vec<(String, String, String)> {
        let caches = self.caches.lock();
        let mut hooks: Vec<_> = caches
            .get(cache)
            .into_iter()
            .flat_map(HashMap::values)
            .map(|entry| {
                let hook = &entry.hook;
                (hook.name.clone(), hook.topic.clone(), hook.url.clone())
            })
            .collect();
        hooks.sort();
        hooks
    }

    fn hook(&self, cache: &str, name: &str) -> Result<Arc<Hook>, Error> {
        self.caches
            .lock()
            .get(cache)
            .and_then(|hooks| hooks.get(name))
            .map(|entry| entry.hook.clone())
            .ok_or_else(|| Error::WebhookNotFound {
                cache: cache.to_owned(),
                name: name.to_owned(),
            })
    }

    pub fn secret(&self, cache: &str, name: &str) -> Result<String, Error> {
        Ok(self.hook(cache, name)?.secret())
    }

    /// A new secret, used from the next attempt on.
    pub fn rotate(&self, cache: &str, name: &str) -> Result<String, Error> {
        let hook = self.hook(cache, name)?;
        let secret = new_secret();
        *hook.secret.write() = secret.clone();
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
