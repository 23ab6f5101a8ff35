//! `lightprov-node`: a mock full node — a proof-of-authority chain whose state lives in
//! lightprov's engines, served over Ethereum and lightprov JSON-RPC.

use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};

use alloy_primitives::hex;
use anyhow::Context;
use clap::Parser;
use jsonrpsee::server::stop_channel;
use tokio::sync::Notify;

use lightprov_blockstore::{Layout, Options as BlockOptions};
use lightprov_node::{
    beacon::{self, BeaconChain, rest::BeaconApi},
    chain::{Chain, Config, Dishonest},
    families::{self, ROOMS},
    front,
    rpc::{self, Node},
    workload,
};

/// A mock full node for lightprov: a Clique-style proof-of-authority dev chain whose state is
/// kept by lightprov's storage engines, with `eth_getProof` for every past block.
#[derive(Debug, Parser)]
#[command(name = "lightprov-node", version)]
struct Args {
    /// Where the chain and the engines' files live; restarting on the same directory resumes.
    #[arg(long, default_value = "./data")]
    data_dir: PathBuf,
    /// Address to listen on (loopback by default: the dev keys are public).
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// JSON-RPC port (0 picks a free one; the chosen port is printed).
    #[arg(long, default_value_t = 8545)]
    port: u16,
    /// Time between blocks, e.g. `1s`, `500ms` (after a block slower than that, the whole time
    /// from its end); `0` produces a block as soon as a transaction arrives (and on `evm_mine`).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    block_time: Duration,
    /// Fill every block with a deterministic workload.
    #[arg(long, value_enum)]
    workload: Option<workload::Kind>,
    /// Seed of the workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Workload operations per block.
    #[arg(long, default_value_t = 100)]
    tx_per_block: usize,
    /// Signed EIP-1559 value transfers to the dev accounts that the node adds to every block,
    /// beside the workload's transactions (from funded transfer senders; 0 for none).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    transfers: u32,
    /// Storage engines to run (comma-separated; default: every engine of this build): `mpt`
    /// (always; it serves eth_getProof) and each proof family's. Every block's writes go to each.
    #[arg(long, value_delimiter = ',', default_values_t = all_engines())]
    engines: Vec<String>,
    /// The most blocks one `lightprov_getHistory` call may span (larger ranges get -32005).
    /// With scheme `mpt` the answer holds one eth_getProof per block (about 5 KB each): raise
    /// --max-response-bytes with it.
    #[arg(long, default_value_t = 1024)]
    max_history_range: u64,
    /// The most blocks one `eth_getLogs` call may span (larger ranges get -32005); an answer
    /// holds at most 10,000 logs.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    max_logs_range: u64,
    /// The largest request body, in bytes (larger ones get HTTP 413 and -32007). 1 MiB holds a
    /// batch of 1000 ordinary calls or an eth_getProof of 1024 keys with room to spare.
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u32).range(1024..))]
    max_request_bytes: u32,
    /// The largest answer, in bytes (larger ones are replaced by -32008; a batch's by -32011).
    /// 16 MiB holds `lightprov_getHistory` with scheme `mpt` over 1024 blocks (about 5 MB).
    #[arg(long, default_value_t = 16 << 20, value_parser = clap::value_parser!(u32).range(1024..))]
    max_response_bytes: u32,
    /// Connections open at once; the next one gets HTTP 503 and -32005 and is closed.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=65536))]
    max_connections: u32,
    /// Calls in one JSON-RPC batch (larger batches get -32010 and none of their calls runs).
    /// The SDK sends batches of 100.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    max_batch: u32,
    /// From a request's head on, the time its body may take to arrive and its call to be
    /// answered (else -32005, HTTP 408, and the connection is closed); also how long a client
    /// may leave its answer unread before it is disconnected.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    request_timeout: Duration,
    /// The time a connection has to send a complete request head, from its opening or from its
    /// previous answer; an idle connection is closed after it.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    idle_timeout: Duration,
    /// How blocks, transactions and receipts are laid out on disk (fixed when the data
    /// directory is created): `block-lsm` (keys prefixed by block group, each closed group
    /// ingested as tables of its own, the transaction index in its own keyspace),
    /// `hash-keyed` (geth's key schema), or Block-LSM's steps alone for comparison: `prefix`
    /// (group prefix only), `prefix-aligned` (and aligned tables, index shared).
    #[arg(long, value_enum, default_value = "block-lsm")]
    block_layout: BlockLayout,
    /// Blocks per group of the block-ordered layouts.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    block_group: u64,
    #[command(flatten)]
    families: families::Flags,
    /// The consensus beside the proof-of-authority seal: `none`, or `sync-committee`, a
    /// simulated minimal-preset beacon chain (one beacon block per execution block, a sync
    /// committee signing with real BLS keys) served as the beacon light-client API on the
    /// JSON-RPC port (`/eth/v1/beacon/...`).
    #[arg(long, value_enum, default_value = "none")]
    consensus: Consensus,
    /// With `--consensus sync-committee`: the members of the 32 that sign each sync aggregate,
    /// as `N` or `N/32` (below 22, two thirds, light clients follow the optimistic head but
    /// finality does not advance).
    #[arg(long, default_value = "30/32", value_parser = parse_participation)]
    sync_participation: usize,
    /// TESTS ONLY: corrupt answers on purpose, to check that clients catch it.
    #[arg(long, value_enum, hide = true)]
    dishonest: Option<Dishonest>,
}

/// `--consensus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Consensus {
    /// The proof-of-authority chain only.
    None,
    /// A simulated sync committee and the beacon light-client API.
    SyncCommittee,
}

fn parse_participation(s: &str) -> Result<usize, String> {
    let size = beacon::COMMITTEE_SIZE;
    let (n, of) = match s.split_once('/') {
        Some((n, of)) => (n.trim(), Some(of.trim())),
        None => (s.trim(), None),
    };
    if of.is_some_and(|of| of != size.to_string()) {
        return Err(format!(
            "`{s}`: the committee has {size} members (write N or N/{size})"
        ));
    }
    match n.parse::<usize>() {
        Ok(n) if (1..=size).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}`: expected 1 to {size} members, as N or N/{size}"
        )),
    }
}

/// `--block-layout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BlockLayout {
    /// Block-LSM: group prefix, aligned tables, separate transaction index.
    BlockLsm,
    /// geth's key schema.
    HashKeyed,
    /// Group prefix only.
    Prefix,
    /// Group prefix and aligned tables, the index shared with block data.
    PrefixAligned,
}

impl BlockLayout {
    fn layout(self, group: u64) -> Layout {
        let ordered = |align, separate_index| {
            Layout::BlockOrdered(BlockOptions {
                group,
                align,
                separate_index,
            })
        };
        match self {
            Self::BlockLsm => ordered(true, true),
            Self::HashKeyed => Layout::HashKeyed,
            Self::Prefix => ordered(false, false),
            Self::PrefixAligned => ordered(true, false),
        }
    }
}

/// `mpt` and every engine of every family room.
fn all_engines() -> Vec<String> {
    std::iter::once("mpt")
        .chain(families::engine_names())
        .map(String::from)
        .collect()
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration like 1s or 500ms"))?;
    match unit {
        "" | "s" => Ok(Duration::from_secs(n)),
        "ms" => Ok(Duration::from_millis(n)),
        _ => Err(format!("unknown unit in `{s}`: use s or ms")),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,jsonrpsee=warn,fjall=warn,lsm_tree=warn".into()),
        )
        .with_target(false)
        .init();
    let args = Args::parse();
    let available = all_engines();
    for e in &args.engines {
        if !available.contains(e) {
            anyhow::bail!(
                "--engines: `{e}` is not available in this build (available: {})",
                available.join(", ")
            );
        }
    }
    if !args.engines.iter().any(|e| e == "mpt") {
        anyhow::bail!(
            "--engines: `mpt` is required (it holds the chain state eth_getProof serves)"
        );
    }
    if args.max_history_range == 0 {
        anyhow::bail!("--max-history-range must be at least 1");
    }
    const DAY: Duration = Duration::from_secs(24 * 3600);
    for (flag, d) in [
        ("--request-timeout", args.request_timeout),
        ("--idle-timeout", args.idle_timeout),
    ] {
        if d.is_zero() || d > DAY {
            anyhow::bail!("{flag} must be between 1 ms and one day (24 h)");
        }
    }
    let workload = args.workload.map(|kind| workload::Workload {
        kind,
        seed: args.seed,
        ops_per_block: args.tx_per_block,
    });
    let mut config = Config::dev(workload)?;
    config.blocks = args.block_layout.layout(args.block_group);
    config.transfers = args.transfers as usize;
    config.families = Vec::new();
    for room in ROOMS {
        config.families.extend((room.settings)(
            &args.families,
            &args.engines,
            &args.data_dir,
        )?);
    }
    let mut chain = Chain::open(&args.data_dir, config.clone())
        .with_context(|| format!("opening the chain in {}", args.data_dir.display()))?;
    if args.dishonest == Some(Dishonest::Fork) {
        chain.fork();
    }
    let genesis = chain
        .block(0)?
        .context("genesis block missing")?
        .header()?
        .hash_slow();
    let (head, head_hash) = chain.head();
    println!(
        "lightprov-node {} — DEV CHAIN, keys below are public: never use them elsewhere",
        env!("CARGO_PKG_VERSION")
    );
    println!("chain id      {}", config.chain_id);
    println!("genesis hash  {genesis}");
    println!("signer        {}", config.signer.address());
    println!("head          #{} {head_hash}", head.number);
    println!("data dir      {}", args.data_dir.display());
    for (i, a) in config.dev_accounts.iter().enumerate() {
        println!(
            "account {i}     {} key 0x{}",
            a.address(),
            hex::encode(a.credential().to_bytes())
        );
    }
    for line in config.families.iter().filter_map(|f| f.banner()) {
        println!("{line}");
    }
    if let Some(d) = args.dishonest {
        tracing::warn!("DISHONEST MODE {d:?}: answers are corrupted on purpose");
    }

    let beacon = match args.consensus {
        Consensus::None => None,
        Consensus::SyncCommittee => {
            let settings = beacon::Settings {
                participation: args.sync_participation,
            };
            let started = std::time::Instant::now();
            let b = BeaconChain::open(&chain, settings).context("building the beacon chain")?;
            tracing::info!(
                "beacon chain: {} slots derived from the execution chain in {:.2?}",
                b.head_slot().map_or(0, |h| h + 1),
                started.elapsed()
            );
            println!(
                "beacon        minimal preset, {}, genesis validators root 0x{}, slot {}, {}/{} signing",
                beacon::FORK.name(),
                hex::encode(b.network().genesis_validators_root),
                b.head_slot().unwrap_or_default(),
                settings.participation,
                beacon::COMMITTEE_SIZE
            );
            Some(b)
        }
    };

    let on_demand = args.block_time.is_zero();
    let node = Arc::new(Node {
        chain: std::sync::RwLock::new(chain),
        dishonest: args.dishonest,
        new_tx: Notify::new(),
        on_demand,
        max_history_range: args.max_history_range,
        max_logs_range: args.max_logs_range,
    });
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.host, args.port))
        .await
        .context("binding the JSON-RPC port")?;
    let addr = listener.local_addr()?;
    let limits = front::Limits {
        max_request_bytes: args.max_request_bytes,
        max_response_bytes: args.max_response_bytes,
        max_connections: args.max_connections,
        max_batch: args.max_batch,
        request_timeout: args.request_timeout,
        idle_timeout: args.idle_timeout,
    };
    let (stop, handle) = stop_channel();
    let rest = beacon.map(|b| Arc::new(BeaconApi::new(node.clone(), b)) as Arc<dyn front::Rest>);
    let serves_beacon = rest.is_some();
    let gate = front::Gate::default();
    let server = tokio::spawn(front::serve(
        listener,
        rpc::module(node.clone())?,
        rest,
        limits,
        gate.clone(),
        stop,
    ));
    if serves_beacon {
        println!("beacon api    http://{addr}/eth/v1/beacon/");
    }
    println!("json-rpc      http://{addr}");

    let producer = tokio::spawn(produce(node.clone(), gate, args.block_time));
    shutdown_signal().await;
    tracing::info!("shutting down");
    producer.abort();
    handle.stop()?;
    if tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .is_err()
    {
        tracing::warn!("connections still open after 5 s: closing them");
    }
    Ok(())
}

/// Produces a block every `every` (on demand if zero), holding `gate` while it does: after the
/// requests in flight, before those that come later.
async fn produce(node: Arc<Node>, gate: front::Gate, every: Duration) {
    let mut tick = tokio::time::interval(if every.is_zero() {
        Duration::from_secs(3600)
    } else {
        every
    });
    // A block that took longer than the block time is followed by a whole block time without
    // one, in which the requests waiting run (tokio's default fires missed ticks at once: a node
    // slower than its block time produced blocks back to back).
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        if node.on_demand {
            node.new_tx.notified().await;
        } else {
            tick.tick().await;
        }
        // On the blocking pool, as the calls are: no runtime worker waits on the locks. Between
        // requests, not within one: before, each call of a batch took the chain lock on its
        // own, the producer took it between two of them, and a batch of 100
        // `eth_getBlockByNumber` waited for a block per call, past the request timeout.
        let (chain, gate) = (node.clone(), gate.clone());
        let result = tokio::task::spawn_blocking(move || {
            let _quiet = gate
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            chain
                .chain
                .write()
                .map_err(|_| anyhow::anyhow!("chain lock poisoned"))
                .and_then(|mut c| {
                    let n = c.produce_block()?;
                    let txs = c.block(n)?.map_or(0, |b| b.txs.len());
                    Ok((n, c.head().1, txs))
                })
        })
        .await
        .map_err(|e| anyhow::anyhow!("block production stopped: {e}"))
        .and_then(|r| r);
        match result {
            Ok((n, hash, txs)) => tracing::info!("block #{n} {hash} txs={txs}"),
            Err(e) => tracing::error!("block production failed: {e:#}"),
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
