#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod chain;
pub mod dishonest;
pub mod front;
pub mod lvmt;
pub mod rpc;
pub mod workload;
