//! The block store's layouts side by side on the same blocks: geth's hash-keyed schema, and
//! Block-LSM built up step by step as the paper's breakdown does (group prefix alone, + tables
//! aligned to groups, + the transaction index in its own keyspace).
//!
//! For each: write amplification (device bytes written, from `/proc/self/io`, over the bytes of
//! keys and values asked to be stored; with the journal's bytes and without them), table files
//! written and rewritten by merges (from the tables on disk, sampled while it runs — fjall counts
//! no merges or written bytes itself), blocks/s and per-block commit latency (one synced batch
//! per block, as the node commits), and read latency of receipts, whole blocks and transaction
//! lookups afterwards. Blocks are real typed envelopes (EIP-1559 transactions and receipts with
//! one Transfer event each), generated from a seed, identical for every layout.
//!
//! Run: `cargo bench -p lightprov-blockstore --bench layouts` (`npm run bench` runs it). Prints
//! a table and the ratios; nothing is asserted. Under `cargo test` it runs a small smoke test.
//!
//! Environment: `LIGHTPROV_BENCH_STORE_BLOCKS` (blocks per layout; 4000), `LIGHTPROV_BENCH_STORE_TXS`
//! (transactions per block; 100), `LIGHTPROV_BENCH_STORE_MEMTABLE` (memtable and table size in
//! KiB, the same for every keyspace of every layout; 4096), `LIGHTPROV_BENCH_MODE` (`quick`:
//! small sizes), `LIGHTPROV_BENCH_JSON` (a file for the figures), `LIGHTPROV_BENCH_RUN`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use alloy_consensus::{
    Header, Receipt, ReceiptEnvelope, ReceiptWithBloom, SignableTransaction, TxEip1559, TxEnvelope,
};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, Log, Signature, TxKind, U256, keccak256};
use alloy_rlp::{Encodable, RlpEncodable};
use lightprov_blockstore::{Block, BlockStore, Layout, Options, Tuning, user_bytes};
use lightprov_engine_api::kv::{FjallStore, KvStore};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const SEED: u64 = 1;

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// A block's body as the node stores it.
#[derive(RlpEncodable)]
struct Body {
    txs: Vec<Bytes>,
    senders: Vec<Address>,
}

struct Generated {
    hash: [u8; 32],
    header: Vec<u8>,
    body: Vec<u8>,
    receipts: Vec<u8>,
    tx_hashes: Vec<[u8; 32]>,
}

fn b256(rng: &mut impl Rng) -> B256 {
    B256::from(rng.random::<[u8; 32]>())
}

/// Block `number` of the bench chain (`txs` transfers with one event each), from `rng`.
fn generate(rng: &mut ChaCha8Rng, number: u64, parent: B256, txs: usize) -> Generated {
    let mut raw = Vec::with_capacity(txs);
    let mut senders = Vec::with_capacity(txs);
    let mut receipts = Vec::with_capacity(txs);
    let mut tx_hashes = Vec::with_capacity(txs);
    let mut cumulative = 0;
    for _ in 0..txs {
        let from = Address::from(rng.random::<[u8; 20]>());
        let to = Address::from(rng.random::<[u8; 20]>());
        let value = U256::from(rng.random_range(1u64..10u64.pow(18)));
        let tx = TxEip1559 {
            chain_id: 1,
            nonce: rng.random_range(0..10_000),
            gas_limit: 21_000,
            max_fee_per_gas: 30_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: TxKind::Call(to),
            value,
            ..Default::default()
        };
        // The store never checks signatures: random (r, s) have a real one's size and entropy.
        let sig = Signature::new(
            U256::from_be_bytes(rng.random::<[u8; 32]>()),
            U256::from_be_bytes(rng.random::<[u8; 32]>()),
            rng.random(),
        );
        let signed = TxEnvelope::from(tx.into_signed(sig));
        tx_hashes.push(signed.tx_hash().0);
        raw.push(Bytes::from(signed.encoded_2718()));
        senders.push(from);
        cumulative += 21_000;
        let log = Log::new_unchecked(
            Address::repeat_byte(0xff),
            vec![b256(rng), from.into_word(), to.into_word()],
            Bytes::from(value.to_be_bytes::<32>().to_vec()),
        );
        receipts.push(Bytes::from(
            ReceiptEnvelope::Eip1559(ReceiptWithBloom::from(Receipt {
                status: true.into(),
                cumulative_gas_used: cumulative,
                logs: vec![log],
            }))
            .encoded_2718(),
        ));
    }
    let header = Header {
        parent_hash: parent,
        state_root: b256(rng),
        transactions_root: b256(rng),
        receipts_root: b256(rng),
        number,
        gas_limit: 30_000_000,
        gas_used: cumulative,
        timestamp: 1_700_000_000 + number,
        extra_data: Bytes::from(rng.random::<[u8; 32]>().to_vec()),
        base_fee_per_gas: Some(1_000_000_000),
        ..Default::default()
    };
    let mut header_rlp = Vec::new();
    header.encode(&mut header_rlp);
    let mut body = Vec::new();
    Body { txs: raw, senders }.encode(&mut body);
    let mut receipts_rlp = Vec::new();
    receipts.encode(&mut receipts_rlp);
    Generated {
        hash: keccak256(&header_rlp).0,
        header: header_rlp,
        body,
        receipts: receipts_rlp,
        tx_hashes,
    }
}

/// `/proc/self/io` (Linux): bytes this process sent to the storage layer, minus those of
/// pages dropped before they were written (`cancelled_write_bytes`), and bytes written by
/// system calls (`wchar`). `None` elsewhere.
fn proc_io() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    let field = |name: &str| -> Option<u64> {
        text.lines().find_map(|l| {
            l.strip_prefix(name)?
                .strip_prefix(": ")?
                .trim()
                .parse()
                .ok()
        })
    };
    Some((
        field("write_bytes")?.saturating_sub(field("cancelled_write_bytes")?),
        field("wchar")?,
    ))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Table,
    Journal,
}

/// The largest allocated size each table and journal file reached while it was sampled.
#[derive(Default)]
struct Files(HashMap<PathBuf, (FileKind, u64)>);

impl Files {
    fn sample(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                self.sample(&path);
                continue;
            }
            let kind = if path.extension().is_some_and(|x| x == "jnl") {
                FileKind::Journal
            } else if path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|p| p == "tables")
            {
                FileKind::Table
            } else {
                continue;
            };
            let size = {
                use std::os::unix::fs::MetadataExt;
                meta.blocks() * 512
            };
            let entry = self.0.entry(path).or_insert((kind, 0));
            entry.1 = entry.1.max(size);
        }
    }

    /// Bytes of table files no longer on disk (rewritten by merges), per keyspace.
    fn rewritten_by_space(&self, spaces: &[(&'static str, PathBuf)]) -> Value {
        let mut by = serde_json::Map::new();
        for (name, dir) in spaces {
            let bytes: u64 = self
                .0
                .iter()
                .filter(|(p, (k, _))| *k == FileKind::Table && p.starts_with(dir) && !p.exists())
                .map(|(_, (_, size))| size)
                .sum();
            by.insert((*name).to_string(), json!(bytes));
        }
        Value::Object(by)
    }

    /// (files, bytes) of `kind`, and of those no longer on disk.
    fn totals(&self, kind: FileKind) -> ((u64, u64), (u64, u64)) {
        let mut all = (0, 0);
        let mut gone = (0, 0);
        for (path, (k, size)) in &self.0 {
            if *k != kind {
                continue;
            }
            all.0 += 1;
            all.1 += size;
            if !path.exists() {
                gone.0 += 1;
                gone.1 += size;
            }
        }
        (all, gone)
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

struct Run {
    name: &'static str,
    layout: Layout,
}

fn runs(group: u64) -> Vec<Run> {
    let ordered = |align, separate_index| {
        Layout::BlockOrdered(Options {
            group,
            align,
            separate_index,
        })
    };
    vec![
        Run {
            name: "hash-keyed (geth)",
            layout: Layout::HashKeyed,
        },
        Run {
            name: "prefix",
            layout: ordered(false, false),
        },
        Run {
            name: "prefix + aligned",
            layout: ordered(true, false),
        },
        Run {
            name: "Block-LSM (+ separate index)",
            layout: ordered(true, true),
        },
    ]
}

fn measure(run: &Run, root: &Path, blocks: u64, txs: usize, tuning: Tuning, reads: usize) -> Value {
    use std::io::IsTerminal;
    let progress = std::io::stderr().is_terminal();
    let dir = tempfile::tempdir_in(root).unwrap();
    let kv = Arc::new(FjallStore::open(dir.path()).unwrap());
    let store = BlockStore::open(kv.clone(), run.layout, tuning).unwrap();
    // The sampler: every 5 ms, the tables and journals on disk.
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        let path = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let mut files = Files::default();
            while !stop.load(Ordering::Relaxed) {
                files.sample(&path);
                std::thread::sleep(Duration::from_millis(5));
            }
            files.sample(&path);
            files
        })
    };
    let io0 = proc_io();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut parent = B256::ZERO;
    let mut user = 0u64;
    let mut commit_ms = Vec::with_capacity(blocks as usize);
    let mut lookups: Vec<([u8; 32], u64)> = Vec::new();
    let mut writing = Duration::ZERO;
    for n in 0..blocks {
        let b = generate(&mut rng, n, parent, txs);
        parent = B256::from(b.hash);
        if let Some(t) = b.tx_hashes.get(n as usize % txs.max(1)) {
            lookups.push((*t, n));
        }
        let t = Instant::now();
        let ops = store
            .ops(&Block {
                number: n,
                hash: b.hash,
                header: &b.header,
                body: &b.body,
                receipts: &b.receipts,
                tx_hashes: &b.tx_hashes,
            })
            .unwrap();
        user += user_bytes(&ops);
        kv.write(ops).unwrap();
        store.committed(n).unwrap();
        let e = t.elapsed();
        writing += e;
        commit_ms.push(e.as_secs_f64() * 1e3);
        if progress && blocks >= 10 && (n + 1) % (blocks / 10) == 0 {
            eprint!("\r  {}: {} of {blocks} blocks", run.name, n + 1);
        }
    }
    if progress {
        eprint!("\r{:60}\r", "");
    }
    // Flushes and merges still running belong to this layout's writes.
    let db = kv.database();
    let settle = Instant::now();
    while (db.outstanding_flushes() > 0 || db.active_compactions() > 0)
        && settle.elapsed() < Duration::from_secs(300)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let settled_s = settle.elapsed().as_secs_f64();
    let io1 = proc_io();
    stop.store(true, Ordering::Relaxed);
    let files = sampler.join().unwrap();
    let ((tables, table_bytes), (rewritten, rewritten_bytes)) = files.totals(FileKind::Table);
    let ((journals, journal_bytes), _) = files.totals(FileKind::Journal);
    let stats = store.stats();
    let rewritten_by_space = files.rewritten_by_space(&store.keyspaces());

    // Reads: random blocks' receipts, whole blocks (canonical hash, header, body, receipts),
    // and transactions by hash.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
    let mut time = |f: &mut dyn FnMut(&mut ChaCha8Rng)| -> Vec<f64> {
        sorted(
            (0..reads)
                .map(|_| {
                    let t = Instant::now();
                    f(&mut rng);
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect(),
        )
    };
    let receipts_us = time(&mut |r| {
        let n = r.random_range(0..blocks);
        assert!(store.receipts(n).unwrap().is_some());
    });
    let block_us = time(&mut |r| {
        let n = r.random_range(0..blocks);
        assert!(store.header(n).unwrap().is_some());
        assert!(store.body(n).unwrap().is_some());
        assert!(store.receipts(n).unwrap().is_some());
    });
    let tx_us = time(&mut |r| {
        let (h, n) = lookups[r.random_range(0..lookups.len())];
        assert_eq!(store.tx_location(&h).unwrap().map(|l| l.0), Some(n));
    });

    let device = match (io0, io1) {
        (Some(a), Some(b)) => Some((b.0 - a.0, b.1 - a.1)),
        _ => None,
    };
    let commit = sorted(commit_ms);
    let blocks_per_s = blocks as f64 / writing.as_secs_f64();
    let wa = device.map(|(d, _)| d as f64 / user as f64);
    let wa_no_journal = device.map(|(d, _)| d.saturating_sub(journal_bytes) as f64 / user as f64);
    json!({
        "name": run.name,
        "layout": run.layout.to_string(),
        "userBytes": user,
        "deviceBytes": device.map(|d| d.0),
        "syscallBytes": device.map(|d| d.1),
        "journalBytes": journal_bytes,
        "journals": journals,
        "writeAmplification": wa,
        "writeAmplificationNoJournal": wa_no_journal,
        "tablesWritten": tables,
        "tableBytesWritten": table_bytes,
        "tablesRewritten": rewritten,
        "bytesRewritten": rewritten_bytes,
        "bytesRewrittenByKeyspace": rewritten_by_space,
        "tablesAtEnd": stats.data.tables + stats.index.map_or(0, |i| i.tables),
        "blocksPerS": blocks_per_s,
        "commitP50Ms": percentile(&commit, 0.5),
        "commitP99Ms": percentile(&commit, 0.99),
        "commitMaxMs": percentile(&commit, 1.0),
        "settleS": settled_s,
        "readReceiptsP50Us": percentile(&receipts_us, 0.5),
        "readReceiptsP99Us": percentile(&receipts_us, 0.99),
        "readBlockP50Us": percentile(&block_us, 0.5),
        "readBlockP99Us": percentile(&block_us, 0.99),
        "readTxP50Us": percentile(&tx_us, 0.5),
        "readTxP99Us": percentile(&tx_us, 0.99),
    })
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let quick = smoke || std::env::var("LIGHTPROV_BENCH_MODE").as_deref() == Ok("quick");
    let blocks: u64 = env("LIGHTPROV_BENCH_STORE_BLOCKS").unwrap_or(if smoke {
        60
    } else if quick {
        400
    } else {
        4_000
    });
    let txs: usize = env("LIGHTPROV_BENCH_STORE_TXS").unwrap_or(if quick { 50 } else { 100 });
    let kib: u64 = env("LIGHTPROV_BENCH_STORE_MEMTABLE").unwrap_or(if quick { 256 } else { 4096 });
    let reads: usize = if smoke { 50 } else { 2_000 };
    let tuning = Tuning {
        memtable: Some(kib * 1024),
        table: Some(kib * 1024),
    };
    let root = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
        .join("bench/blockstore");
    std::fs::create_dir_all(&root).unwrap();
    // A group fills three quarters of a memtable, so that the staging keyspace (alignment)
    // holds the open group with the same memory as every other memtable.
    let sample = generate(&mut ChaCha8Rng::seed_from_u64(SEED), 0, B256::ZERO, txs);
    let block_bytes = (sample.header.len() + sample.body.len() + sample.receipts.len()) as u64;
    let group = (kib * 1024 * 3 / 4 / block_bytes).max(1);
    println!(
        "\nBlock store layouts — {blocks} blocks of {txs} EIP-1559 transfers (one event each, {:.1} KiB a block), groups of {group} blocks; memtable and table target {kib} KiB in every keyspace (fjall's L0 threshold 4); one synced batch per block; {} build",
        block_bytes as f64 / 1024.0,
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    let mut rows = Vec::new();
    for run in runs(group) {
        rows.push(measure(&run, &root, blocks, txs, tuning, reads));
    }
    let user = rows[0]["userBytes"].as_u64().unwrap_or(0);
    println!(
        "user bytes {:.1} MiB per layout ({:.1}× memtable × L0 threshold)",
        user as f64 / 1048576.0,
        user as f64 / (kib as f64 * 1024.0 * 4.0)
    );
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let mib = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN) / 1048576.0;
    println!(
        "{:<30} {:>6} {:>8} {:>9} {:>11} {:>9} {:>8} {:>8} {:>9} {:>9} {:>8}",
        "layout",
        "WA",
        "WA−jnl",
        "rewrites",
        "rewr. MiB",
        "blocks/s",
        "p99 ms",
        "rcpt µs",
        "block µs",
        "tx µs",
        "tables"
    );
    for r in &rows {
        println!(
            "{:<30} {:>6.2} {:>8.2} {:>9} {:>11.1} {:>9.0} {:>8.2} {:>8.1} {:>9.1} {:>9.1} {:>8}",
            r["name"].as_str().unwrap_or(""),
            f(r, "writeAmplification"),
            f(r, "writeAmplificationNoJournal"),
            r["tablesRewritten"],
            mib(r, "bytesRewritten"),
            f(r, "blocksPerS"),
            f(r, "commitP99Ms"),
            f(r, "readReceiptsP50Us"),
            f(r, "readBlockP50Us"),
            f(r, "readTxP50Us"),
            r["tablesAtEnd"],
        );
    }
    for r in &rows {
        println!(
            "  {}: bytes rewritten by merges per keyspace {}",
            r["name"].as_str().unwrap_or(""),
            r["bytesRewrittenByKeyspace"]
        );
    }
    let (hash, lsm) = (&rows[0], &rows[rows.len() - 1]);
    let ratios = json!({
        "writeAmplification": f(hash, "writeAmplification") / f(lsm, "writeAmplification"),
        "writeAmplificationNoJournal": f(hash, "writeAmplificationNoJournal") / f(lsm, "writeAmplificationNoJournal"),
        "blocksPerS": f(lsm, "blocksPerS") / f(hash, "blocksPerS"),
        "commitP99": f(hash, "commitP99Ms") / f(lsm, "commitP99Ms"),
        "readReceipts": f(lsm, "readReceiptsP50Us") / f(hash, "readReceiptsP50Us"),
        "readBlock": f(lsm, "readBlockP50Us") / f(hash, "readBlockP50Us"),
        "readTx": f(lsm, "readTxP50Us") / f(hash, "readTxP50Us"),
    });
    println!(
        "Block-LSM vs hash-keyed: write amplification {:.2}× lower ({:.2}× without the journal), {:.2}× the blocks/s, p99 commit latency hash-keyed / Block-LSM {:.2}; reads (p50, Block-LSM / hash-keyed): receipts {:.2}, block {:.2}, tx lookup {:.2}",
        ratios["writeAmplification"].as_f64().unwrap_or(f64::NAN),
        ratios["writeAmplificationNoJournal"]
            .as_f64()
            .unwrap_or(f64::NAN),
        ratios["blocksPerS"].as_f64().unwrap_or(f64::NAN),
        ratios["commitP99"].as_f64().unwrap_or(f64::NAN),
        ratios["readReceipts"].as_f64().unwrap_or(f64::NAN),
        ratios["readBlock"].as_f64().unwrap_or(f64::NAN),
        ratios["readTx"].as_f64().unwrap_or(f64::NAN),
    );
    if let Some(path) = std::env::var("LIGHTPROV_BENCH_JSON")
        .ok()
        .filter(|f| !f.is_empty())
    {
        let out = json!({
            "run": std::env::var("LIGHTPROV_BENCH_RUN").unwrap_or_default(),
            "blocks": blocks,
            "txsPerBlock": txs,
            "group": group,
            "memtableKiB": kib,
            "build": if cfg!(debug_assertions) { "dev" } else { "release" },
            "layouts": rows,
            "ratios": ratios,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&out).unwrap()).unwrap();
    }
}
