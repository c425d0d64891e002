//! The storage layer on real files: creating, opening and loading databases.

mod support;

mod init;
mod load;
mod open;
