#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod amt;
mod g1fft;
mod input;
pub mod ptau;
pub mod setup;
pub mod store;
pub mod tree;
