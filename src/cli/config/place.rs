//! Where the config file is: `--config-file`, else
//! `$XDG_CONFIG_HOME/receipt-review/config.toml` (`~/.config/…` when the
//! variable is unset), the place terminal tools read on Linux and macOS alike.

use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;

/// The file's name inside the config folder.
const FILE: &str = "receipt-review/config.toml";

/// Which file was read, and why that one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// Named by `--config-file`: it must exist.
    Named(PathBuf),
    /// The default place, where a file was found.
    Default(PathBuf),
    /// No file at the default place (or no home folder to look in).
    Missing(Option<PathBuf>),
}

impl Found {
    pub fn path(&self) -> Option<&Path> {
        match self {
            Found::Named(p) | Found::Default(p) => Some(p),
            Found::Missing(_) => None,
        }
    }
}

/// The default place of the config file, when there is a home folder.
pub fn default_path() -> Option<PathBuf> {
    etcetera::choose_base_strategy()
        .ok()
        .map(|base| base.config_dir().join(FILE))
}

/// The file to read: the one named, else the default one if it is there.
pub fn find(named: Option<&Path>) -> Found {
    if let Some(path) = named {
        return Found::Named(path.to_path_buf());
    }
    match default_path() {
        Some(path) if path.exists() => Found::Default(path),
        other => Found::Missing(other),
    }
}
