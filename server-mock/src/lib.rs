#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod beacon;
pub mod calls;
pub mod chain;
pub mod dishonest;
mod engines;
pub mod exec;
pub mod families;
pub mod front;
mod handler;
pub mod rpc;
pub mod sign;
pub mod trace;
pub mod workload;
