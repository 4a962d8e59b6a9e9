//! `declare_settings!`: from one line per setting, everything the server
//! needs to read it and show it.
//!
//! An entry is the setting's help (its doc comment, shown by `--help`), its
//! name (the field; the flag and the TOML key are its kebab-case), the type
//! its sources give (`Option<V>`, or `bool` for a switch), its default, the
//! placeholder of the README's flag column, its environment variable and the
//! README's description; `global` lets it follow a subcommand too.
//!
//! The default is one of `default(value)` (filled in when no source gives
//! the setting), `computed("what")` (worked out by `Settings::resolve`) or
//! `unset("what")` (it stays `None`, or off).
//!
//! From the entries it makes `Settings` (clap and serde read it), its
//! `or`, `Values` (each setting with its default filled in) and
//! `settings()`, the table `--help` and the README read. A macro, not a
//! derive of clap's or a layered configuration library: clap's
//! `default_value` would shadow the TOML file (which only fills what flags
//! and the environment leave unset), and the libraries that layer sources
//! keep the defaults, the names and the README apart again.

/// How a setting's default is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shown {
    /// A value, shown by `--help` and the README.
    Value(String),
    /// Worked out at start, said in words by `--help` and the README.
    Computed(&'static str),
    /// Absent unless given (`off`, `none`); the README says so, `--help` does not.
    Unset(&'static str),
}

/// One setting as `--help` and the README show it.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The field of `Settings`; clap's argument id.
    pub id: &'static str,
    /// The README's placeholder for the value (`SIZE`); empty for a switch.
    pub placeholder: &'static str,
    pub env: &'static str,
    pub default: Shown,
    /// The README's description, in Markdown.
    pub readme: &'static str,
}

impl Setting {
    /// The TOML key, also the flag without its dashes.
    pub fn key(&self) -> String {
        self.id.replace('_', "-")
    }

    /// What `--help` adds as `[default: ...]`.
    pub fn help_default(&self) -> Option<String> {
        match &self.default {
            Shown::Value(value) => Some(value.clone()),
            Shown::Computed(text) => Some((*text).to_owned()),
            Shown::Unset(_) => None,
        }
    }
}

macro_rules! declare_settings {
    ($(
        $(#[doc = $help:literal])+
        $name:ident: $ty:ty = $kind:ident($($default:tt)*), $placeholder:literal, env $env:literal,
            $readme:literal $(, $global:ident)?;
    )*) => {
        /// The settings as given: each one is optional until the sources are merged.
        #[derive(clap::Parser, serde::Deserialize, Debug, Default)]
        #[command(name = "jiffy-server", version, about)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        pub struct Settings {$(
            $(#[doc = $help])+
            #[arg(
                long,
                env = $env,
                global = declare_settings!(@global $($global)?),
                action = <$ty as $crate::config::value::Field>::action(),
                value_parser = <$ty as $crate::config::value::Field>::parser(),
            )]
            #[serde(default, deserialize_with = "crate::config::value::deserialize")]
            pub $name: $ty,
        )*}

        /// Each setting with its default filled in; `computed` and `unset`
        /// ones as given.
        #[derive(Debug)]
        pub struct Values {$(
            pub $name: declare_settings!(@type $ty, $kind),
        )*}

        impl Settings {
            /// Each setting of `self`, or else of `fallback`.
            pub fn or(self, fallback: Settings) -> Settings {
                use $crate::config::value::Field;
                Settings {$(
                    $name: Field::or(self.$name, fallback.$name),
                )*}
            }

            /// Fills in each default.
            pub fn values(self) -> Values {
                Values {$(
                    $name: declare_settings!(@value self.$name, $kind($($default)*)),
                )*}
            }
        }

        /// Every setting, in the order of `--help` and the README.
        pub fn settings() -> Vec<$crate::config::declare::Setting> {
            vec![$(
                $crate::config::declare::Setting {
                    id: stringify!($name),
                    placeholder: $placeholder,
                    env: $env,
                    default: declare_settings!(@shown $ty, $kind($($default)*)),
                    readme: $readme,
                },
            )*]
        }
    };
    (@global global) => { true };
    (@global) => { false };
    (@type $ty:ty, default) => { <$ty as $crate::config::value::Field>::Value };
    (@type $ty:ty, $other:ident) => { $ty };
    (@value $given:expr, default($default:expr)) => { $given.unwrap_or_else(|| $default) };
    (@value $given:expr, $other:ident($($text:tt)*)) => { $given };
    (@shown $ty:ty, default($default:expr)) => {
        $crate::config::declare::Shown::Value(
            <<$ty as $crate::config::value::Field>::Value as $crate::config::value::Value>::show(
                &$default,
            ),
        )
    };
    (@shown $ty:ty, computed($text:literal)) => { $crate::config::declare::Shown::Computed($text) };
    (@shown $ty:ty, unset($text:literal)) => { $crate::config::declare::Shown::Unset($text) };
}

pub(crate) use declare_settings;
