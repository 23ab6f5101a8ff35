#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod amt;
pub mod setup;
pub mod tree;
