//! The command line end to end, the demo generator, and the report on demos
//! with known answers.

#[path = "../common/mod.rs"]
mod common;

mod absorbed;
mod commands;
mod config;
mod decisions;
mod demo;
mod demo_forms;
mod erase;
mod export;
mod find;
mod find_typed;
mod foreign;
mod forms;
mod japanese;
mod report;
mod usage;
