//! Native benchmarks of `lightprov-verifier`, in `benches/`: `cargo bench -p
//! lightprov-verifier-bench`. The library is empty.
