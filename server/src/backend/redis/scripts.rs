//! The server-side scripts. Each call that reads and then writes runs as one
//! Lua script, which Redis executes atomically; the sources are in `lua/`.

use std::sync::LazyLock;

use redis::Script;

// One static per script of `lua/` (`list_fetch.lua` -> `LIST_FETCH`), its
// preludes prepended as its first line names them: `server/build.rs` reads
// the headers (`-- prelude`, `-- script`, `-- script: <preludes>`).
include!(concat!(env!("OUT_DIR"), "/lua_scripts.rs"));

/// What the item scripts return when the cache does not exist.
pub const NO_CACHE: i64 = 0;

/// The code of the error reply an item script gives for a call on an item
/// of another type: `JIFFYTYPE <expected> <found>`.
pub const WRONG_TYPE: &str = "JIFFYTYPE";

#[cfg(test)]
mod tests {
    use super::{PRELUDES, SCRIPTS};

    /// The generated table, held to the directory as it is now: every file
    /// is a script or a prelude, and every prelude a script names is one.
    #[test]
    fn every_lua_file_is_in_the_table_and_every_prelude_exists() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/backend/redis/lua");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "lua"))
            .map(|path| path.file_stem().unwrap().to_str().unwrap().to_string())
            .collect();
        files.sort();
        let mut table: Vec<&str> = SCRIPTS.iter().map(|(name, _)| *name).collect();
        table.extend(PRELUDES);
        table.sort();
        assert_eq!(files, table);
        for (name, preludes) in SCRIPTS {
            for prelude in *preludes {
                assert!(
                    PRELUDES.contains(prelude),
                    "lua/{name}.lua names {prelude:?}, which is no prelude"
                );
            }
        }
    }
}
