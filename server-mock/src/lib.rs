#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod beacon;
pub mod chain;
pub mod dishonest;
pub mod families;
pub mod front;
pub mod rpc;
pub mod workload;
