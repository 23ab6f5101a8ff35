#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod bloom;
pub mod index;
pub mod mbtree;
pub mod run;
pub mod wal;

use std::{
    collections::{BTreeMap, BTreeSet},
    fs::{self, File, OpenOptions},
    io::{self, Read, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, mpsc},
    thread::JoinHandle,
    time::Duration,
};

use alloy_primitives::B256;
use lightprov_engine_api::{Key, StateEngine, Write as StateWrite};
use lightprov_types::{
    Word,
    cole::{Entry, HistoryProof, Part, Structure, StructureKind, hash},
};
use serde::{Deserialize, Serialize};

use crate::{
    mbtree::MbTree,
    run::{Run, RunBuilder, RunMeta},
    wal::{Record, Wal},
};

/// Engine parameters. Every node of a chain must use the same ones: they shape `H_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// Size ratio `T`: runs per level before they merge into the next.
    pub size_ratio: usize,
    /// Merkle fanout `m` of runs and MB-tree nodes.
    pub fanout: u8,
    /// Learned-model error bound ε, in positions.
    pub epsilon: u64,
    /// Level-0 capacity `B`, in entries; a full level 0 is flushed at the end of its block.
    pub l0_capacity: u64,
    /// COLE* (§5): merges in background threads between start and commit checkpoints.
    pub async_merge: bool,
}

impl Params {
    /// COLE with the paper's defaults: T = 4, m = 4, ε from a 4 KB page, B = 8192 (≈ 1 MiB).
    pub fn cole() -> Self {
        Self {
            size_ratio: 4,
            fanout: 4,
            epsilon: index::epsilon_for_page(4096),
            l0_capacity: 8192,
            async_merge: false,
        }
    }

    /// COLE* with the same defaults.
    pub fn cole_star() -> Self {
        Self {
            async_merge: true,
            ..Self::cole()
        }
    }

    fn check(&self) -> Result<(), Error> {
        if !(2..=64).contains(&self.size_ratio) {
            return Err(Error::Params("size_ratio must be in 2..=64"));
        }
        if !(lightprov_types::cole::MIN_FANOUT..=64).contains(&self.fanout) {
            return Err(Error::Params(
                "fanout must be in 3..=64 (a B+-tree of fanout 2 cannot stay balanced)",
            ));
        }
        if self.epsilon == 0 || !(1..=1 << 24).contains(&self.l0_capacity) {
            return Err(Error::Params(
                "epsilon must be at least 1 and l0_capacity in 1..=2^24",
            ));
        }
        Ok(())
    }
}

/// Options that do not change `H_state`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Skip fsync (benchmarks of the data structure alone; a crash may lose blocks).
    pub no_sync: bool,
    /// Delay every background merge by this long (tests: slow nodes reach the same roots).
    pub merge_delay: Duration,
    /// Run COLE*'s merges inline at their start checkpoint (tests: the fastest node).
    pub merge_inline: bool,
    /// Delay every manifest write by this long (tests: a manifest lagging the logs by several
    /// checkpoints when the process dies).
    pub manifest_delay: Duration,
}

/// Engine failures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What the engine was doing.
        context: String,
        /// The cause.
        source: io::Error,
    },
    /// The directory holds data the engine cannot use.
    #[error("corrupt COLE data: {0}")]
    Corrupt(String),
    /// Invalid parameters.
    #[error("invalid COLE parameters: {0}")]
    Params(&'static str),
    /// A block out of sequence, or a query outside the stored blocks.
    #[error("{0}")]
    Block(String),
}

trait Ctx<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, Error>;
}

impl<T> Ctx<T> for io::Result<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, Error> {
        self.map_err(|source| Error::Io {
            context: what(),
            source,
        })
    }
}

const MANIFEST: &str = "MANIFEST.json";
const ROOTS: &str = "roots.bin";
const FORMAT: u32 = 1;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct LevelRecord {
    /// The writing group, oldest first (every run in sync mode).
    w: Vec<RunMeta>,
    /// The merging group, oldest first (COLE* only).
    m: Vec<RunMeta>,
    /// The run the merging group is being merged into.
    merging_into: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    params: Params,
    /// Blocks up to here are in the runs and WAL generations named below.
    head: Option<u64>,
    next_id: u64,
    w0_gen: u64,
    m0_gen: Option<u64>,
    m0_merging_into: Option<u64>,
    levels: Vec<LevelRecord>,
}

/// A merge running (or, inline, already run) towards the next level's writing group.
struct Pending {
    id: u64,
    handle: Option<JoinHandle<io::Result<Run>>>,
    done: Option<io::Result<Run>>,
}

impl Pending {
    fn wait(mut self) -> io::Result<Run> {
        if let Some(r) = self.done.take() {
            return r;
        }
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("a merge thread panicked")),
            None => Err(io::Error::other("a merge has no result")),
        }
    }
}

#[derive(Default)]
struct Level {
    w: Vec<Arc<Run>>,
    m: Vec<Arc<Run>>,
    pending: Option<Pending>,
}

struct Group0 {
    tree: MbTree,
    generation: u64,
}

/// COLE or COLE*; see the crate docs.
pub struct ColeEngine {
    dir: PathBuf,
    params: Params,
    opts: Options,
    head: Option<u64>,
    roots: Vec<B256>,
    roots_file: File,
    next_id: u64,
    w0: Group0,
    wal: Wal,
    m0: Option<(Arc<MbTree>, u64)>,
    pending0: Option<Pending>,
    levels: Vec<Level>,
    /// The block whose maintenance changed the structure and awaits a manifest.
    dirty: bool,
    /// WAL generations to delete once the manifest no longer names them.
    obsolete_gens: Vec<u64>,
    /// Runs to delete once the manifest no longer names them.
    obsolete_runs: Vec<u64>,
    /// A block applied in memory, not yet durable.
    staged: Option<Staged>,
    /// Writes manifests in the background.
    writer: ManifestWriter,
}

/// One manifest to write (or, without bytes, a marker to wait for).
struct ManifestJob {
    bytes: Option<Vec<u8>>,
    gens: Vec<u64>,
    runs: Vec<u64>,
    done: Option<mpsc::Sender<()>>,
}

/// The thread that writes manifests in order and then deletes what they no longer name.
struct ManifestWriter {
    tx: Option<mpsc::Sender<ManifestJob>>,
    handle: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<String>>>,
}

impl ManifestWriter {
    fn start(dir: PathBuf, roots: File, sync: bool, delay: Duration) -> Self {
        let (tx, rx) = mpsc::channel::<ManifestJob>();
        let failed = Arc::new(Mutex::new(None));
        let flag = failed.clone();
        let handle = std::thread::spawn(move || {
            for job in rx {
                let ok = flag.lock().map(|f| f.is_none()).unwrap_or(false);
                if ok && let Some(bytes) = &job.bytes {
                    if !delay.is_zero() {
                        std::thread::sleep(delay);
                    }
                    let write = || -> io::Result<()> {
                        if sync {
                            roots.sync_data()?;
                        }
                        let tmp = dir.join(format!("{MANIFEST}.tmp"));
                        let mut f = File::create(&tmp)?;
                        f.write_all(bytes)?;
                        if sync {
                            f.sync_all()?;
                        }
                        fs::rename(&tmp, dir.join(MANIFEST))?;
                        if sync {
                            File::open(&dir)?.sync_all()?;
                        }
                        Ok(())
                    };
                    match write() {
                        Ok(()) => {
                            for g in &job.gens {
                                let _ = fs::remove_file(wal::path(&dir, *g));
                            }
                            for id in &job.runs {
                                Run::delete_files(&dir, *id);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = flag.lock() {
                                *f = Some(format!("writing {MANIFEST}: {e}"));
                            }
                        }
                    }
                }
                if let Some(d) = job.done {
                    let _ = d.send(());
                }
            }
        });
        Self {
            tx: Some(tx),
            handle: Some(handle),
            failed,
        }
    }

    /// The writer's failure, if any: the engine must not go on without its manifests.
    fn check(&self) -> Result<(), Error> {
        match self.failed.lock() {
            Ok(f) => match f.as_ref() {
                Some(e) => Err(Error::Corrupt(e.clone())),
                None => Ok(()),
            },
            Err(_) => Err(Error::Corrupt("the manifest writer panicked".into())),
        }
    }

    fn send(&self, job: ManifestJob) -> Result<(), Error> {
        self.check()?;
        self.tx
            .as_ref()
            .and_then(|tx| tx.send(job).ok())
            .ok_or_else(|| Error::Corrupt("the manifest writer stopped".into()))
    }

    /// Waits until every queued manifest is written.
    fn flush(&self) -> Result<(), Error> {
        let (done, wait) = mpsc::channel();
        self.send(ManifestJob {
            bytes: None,
            gens: Vec::new(),
            runs: Vec::new(),
            done: Some(done),
        })?;
        let _ = wait.recv();
        self.check()
    }
}

impl Drop for ManifestWriter {
    fn drop(&mut self) {
        // Closing the channel lets the thread finish the queue and exit.
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

struct Staged {
    record: Record,
    rotated: bool,
}

impl std::fmt::Debug for ColeEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColeEngine")
            .field("dir", &self.dir)
            .field("params", &self.params)
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

/// A structure of the state, newest first.
enum Structure0<'a> {
    Tree(&'a MbTree),
    Run(&'a Run),
}

fn spawn_merge(
    dir: PathBuf,
    id: u64,
    params: Params,
    opts: Options,
    source: MergeSource,
) -> Pending {
    // The thread also opens the run, so the commit checkpoint only moves pointers.
    let job = move || -> io::Result<Run> {
        if !opts.merge_delay.is_zero() {
            std::thread::sleep(opts.merge_delay);
        }
        Run::delete_files(&dir, id);
        let meta = build_run(&dir, id, params, &source)?;
        Run::open(&dir, meta, params.fanout)
    };
    if opts.merge_inline {
        Pending {
            id,
            handle: None,
            done: Some(job()),
        }
    } else {
        Pending {
            id,
            handle: Some(std::thread::spawn(job)),
            done: None,
        }
    }
}

/// What a new run is built from.
enum MergeSource {
    Tree(Arc<MbTree>),
    Runs(Vec<Arc<Run>>),
}

fn build_run(dir: &Path, id: u64, params: Params, source: &MergeSource) -> io::Result<RunMeta> {
    match source {
        MergeSource::Tree(t) => {
            let mut b = RunBuilder::new(dir, id, t.len(), params.fanout, params.epsilon)?;
            for e in t.iter() {
                b.push(e)?;
            }
            b.finish()
        }
        MergeSource::Runs(runs) => {
            let n = runs.iter().map(|r| r.meta.n).sum();
            let mut b = RunBuilder::new(dir, id, n, params.fanout, params.epsilon)?;
            let mut iters = runs
                .iter()
                .map(|r| r.iter())
                .collect::<io::Result<Vec<_>>>()?;
            // k-way merge; compound keys are unique across runs (one version per block).
            let mut heads: BTreeMap<(B256, u64), (usize, Word)> = BTreeMap::new();
            for (i, it) in iters.iter_mut().enumerate() {
                if let Some(e) = it.next().transpose()? {
                    heads.insert(e.compound(), (i, e.value));
                }
            }
            while let Some(((key, block), (i, value))) = heads.pop_first() {
                b.push(&Entry { key, block, value })?;
                if let Some(e) = iters.get_mut(i).and_then(Iterator::next).transpose()? {
                    heads.insert(e.compound(), (i, e.value));
                }
            }
            b.finish()
        }
    }
}

/// What replaying the logs recovers besides the trees: the head and the last root logged.
#[derive(Debug)]
struct Recovered {
    head: Option<u64>,
    last_root: Option<B256>,
}

impl ColeEngine {
    /// Opens (creating) the engine in `dir` with `params`; reopening with other parameters is
    /// refused. Recovers from a crash at any point, in this order: read the manifest (the last
    /// durable list of runs) and remove files it does not name; read the synced roots; open the
    /// runs; rebuild level 0 from its logs; restart interrupted merges; redo the checkpoints the
    /// manifest missed; check the recovered root against the last one logged.
    pub fn open(dir: &Path, params: Params, opts: Options) -> Result<Self, Error> {
        params.check()?;
        fs::create_dir_all(dir).ctx(|| format!("creating {}", dir.display()))?;
        let (manifest, fresh) = Self::read_manifest(dir, params)?;
        Self::remove_orphans(dir, &manifest)?;
        let (roots_file, mut roots, roots_len) = Self::read_roots(dir)?;
        let levels = Self::open_levels(dir, params, &manifest)?;
        let mut recovered = Recovered {
            head: manifest.head,
            last_root: None,
        };
        let m0 = match manifest.m0_gen {
            Some(g) => {
                let mut t = MbTree::new(params.fanout);
                Self::replay_generation(dir, g, opts, &mut t, &mut roots, &mut recovered)?;
                Some((Arc::new(t), g))
            }
            None => None,
        };
        let mut w0_tree = MbTree::new(params.fanout);
        let wal = Self::replay_generation(
            dir,
            manifest.w0_gen,
            opts,
            &mut w0_tree,
            &mut roots,
            &mut recovered,
        )?;
        let writer = Self::start_writer(dir, &roots_file, opts)?;
        let mut engine = Self {
            dir: dir.to_path_buf(),
            params,
            opts,
            head: recovered.head,
            roots,
            roots_file,
            next_id: manifest.next_id,
            w0: Group0 {
                tree: w0_tree,
                generation: manifest.w0_gen,
            },
            wal,
            m0,
            pending0: None,
            levels,
            dirty: false,
            obsolete_gens: Vec::new(),
            obsolete_runs: Vec::new(),
            staged: None,
            writer,
        };
        engine.restart_merges(&manifest);
        engine.redo_missed_checkpoints(&mut recovered)?;
        engine.trim_roots(roots_len)?;
        // The writer syncs the roots file it was given: give it the current one.
        engine.writer = Self::start_writer(dir, &engine.roots_file, opts)?;
        let _ = engine.w0.tree.root_hash();
        if fresh {
            engine.dirty = true;
        }
        if let (Some(want), Some(got)) = (recovered.last_root, engine.compute_root())
            && want != got
        {
            return Err(Error::Corrupt(format!(
                "recovered state has root {got}, the log recorded {want}"
            )));
        }
        if engine.dirty {
            engine.write_manifest()?;
            engine.writer.flush()?;
        }
        Ok(engine)
    }

    /// The manifest in `dir` (checked against `params`), or a fresh one; `true` if fresh.
    fn read_manifest(dir: &Path, params: Params) -> Result<(Manifest, bool), Error> {
        match fs::read(dir.join(MANIFEST)) {
            Ok(bytes) => {
                let m: Manifest = serde_json::from_slice(&bytes)
                    .map_err(|e| Error::Corrupt(format!("{MANIFEST}: {e}")))?;
                if m.format != FORMAT {
                    return Err(Error::Corrupt(format!(
                        "{MANIFEST}: format {} is not {FORMAT}",
                        m.format
                    )));
                }
                if m.params != params {
                    return Err(Error::Params(
                        "the directory was created with other COLE parameters",
                    ));
                }
                Ok((m, false))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((
                Manifest {
                    format: FORMAT,
                    params,
                    head: None,
                    next_id: 1,
                    w0_gen: 1,
                    m0_gen: None,
                    m0_merging_into: None,
                    levels: Vec::new(),
                },
                true,
            )),
            Err(e) => Err(e).ctx(|| format!("reading {MANIFEST}")),
        }
    }

    /// The roots file (opened for appending), the contiguous roots it holds from block 0, and
    /// its length in bytes.
    fn read_roots(dir: &Path) -> Result<(File, Vec<B256>, usize), Error> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(dir.join(ROOTS))
            .ctx(|| format!("opening {ROOTS}"))?;
        let mut raw = Vec::new();
        file.read_to_end(&mut raw)
            .ctx(|| format!("reading {ROOTS}"))?;
        let mut roots: Vec<B256> = Vec::new();
        for rec in raw.chunks_exact(40) {
            let (b, r) = rec.split_at(8);
            let block = u64::from_be_bytes(b.try_into().unwrap_or([0xff; 8]));
            if block == roots.len() as u64 {
                roots.push(B256::from_slice(r));
            }
        }
        Ok((file, roots, raw.len()))
    }

    /// Opens every run the manifest names, level by level.
    fn open_levels(dir: &Path, params: Params, manifest: &Manifest) -> Result<Vec<Level>, Error> {
        let open = |i: usize, metas: &[RunMeta]| -> Result<Vec<Arc<Run>>, Error> {
            metas
                .iter()
                .map(|m| {
                    Run::open(dir, *m, params.fanout)
                        .map(Arc::new)
                        .ctx(|| format!("opening run {} of level {}", m.id, i + 1))
                })
                .collect()
        };
        manifest
            .levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                Ok(Level {
                    w: open(i, &l.w)?,
                    m: open(i, &l.m)?,
                    pending: None,
                })
            })
            .collect()
    }

    /// Replays log generation `g` into `tree` (and the roots, head and last root it records);
    /// returns the log, open for appending.
    fn replay_generation(
        dir: &Path,
        g: u64,
        opts: Options,
        tree: &mut MbTree,
        roots: &mut Vec<B256>,
        recovered: &mut Recovered,
    ) -> Result<Wal, Error> {
        let (wal, records) =
            Wal::open(dir, g, !opts.no_sync).ctx(|| format!("opening WAL generation {g}"))?;
        replay(
            tree,
            roots,
            &mut recovered.head,
            &mut recovered.last_root,
            g,
            records,
        )?;
        let _ = tree.root_hash();
        Ok(wal)
    }

    /// A manifest writer syncing `roots_file`.
    fn start_writer(dir: &Path, roots_file: &File, opts: Options) -> Result<ManifestWriter, Error> {
        Ok(ManifestWriter::start(
            dir.to_path_buf(),
            roots_file
                .try_clone()
                .ctx(|| format!("opening {ROOTS} for the manifest writer"))?,
            !opts.no_sync,
            opts.manifest_delay,
        ))
    }

    /// Restarts the merges the manifest says were under way; they rebuild the same runs.
    fn restart_merges(&mut self, manifest: &Manifest) {
        if let (Some(id), Some((tree, _))) = (manifest.m0_merging_into, &self.m0) {
            self.pending0 = Some(spawn_merge(
                self.dir.clone(),
                id,
                self.params,
                self.opts,
                MergeSource::Tree(tree.clone()),
            ));
        }
        for (i, l) in manifest.levels.iter().enumerate() {
            if let (Some(id), Some(level)) = (l.merging_into, self.levels.get_mut(i)) {
                level.pending = Some(spawn_merge(
                    self.dir.clone(),
                    id,
                    self.params,
                    self.opts,
                    MergeSource::Runs(level.m.clone()),
                ));
            }
        }
    }

    /// The manifest is written in the background, so it may lag the logs by checkpoints: redo
    /// each missed checkpoint's maintenance (deterministic: the same runs, the same roots),
    /// then replay the log generation that followed it.
    fn redo_missed_checkpoints(&mut self, recovered: &mut Recovered) -> Result<(), Error> {
        while self.maintain()? {
            let g = self.w0.generation;
            let dir = self.dir.clone();
            // The replay moves the engine's head (not only what was recovered before it).
            recovered.head = self.head;
            self.wal = Self::replay_generation(
                &dir,
                g,
                self.opts,
                &mut self.w0.tree,
                &mut self.roots,
                recovered,
            )?;
            self.head = recovered.head;
        }
        Ok(())
    }

    /// Drops roots written after the last durable log record (they belong to no block) and
    /// rewrites the roots file if it does not hold exactly the kept ones.
    fn trim_roots(&mut self, file_len: usize) -> Result<(), Error> {
        let keep = self.head.map_or(0, |h| {
            usize::try_from(h).unwrap_or(usize::MAX).saturating_add(1)
        });
        self.roots.truncate(keep);
        if self.roots.len() != keep {
            return Err(Error::Corrupt(format!(
                "{ROOTS} and the logs hold {} roots for {keep} blocks",
                self.roots.len()
            )));
        }
        if file_len == keep * 40 {
            return Ok(());
        }
        let tmp = self.dir.join(format!("{ROOTS}.tmp"));
        let bytes: Vec<u8> = self
            .roots
            .iter()
            .enumerate()
            .flat_map(|(b, r)| (b as u64).to_be_bytes().into_iter().chain(r.0))
            .collect();
        let dir = &self.dir;
        let write = || -> io::Result<File> {
            let mut f = File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, dir.join(ROOTS))?;
            File::open(dir)?.sync_all()?;
            OpenOptions::new().append(true).open(dir.join(ROOTS))
        };
        self.roots_file = write().ctx(|| format!("rewriting {ROOTS}"))?;
        Ok(())
    }

    fn remove_orphans(dir: &Path, m: &Manifest) -> Result<(), Error> {
        let mut runs: BTreeSet<u64> = BTreeSet::new();
        for l in &m.levels {
            runs.extend(l.w.iter().chain(&l.m).map(|r| r.id));
        }
        // Generations after the manifest's are newer logs (the manifest lags): keep them.
        let oldest_gen = m.m0_gen.unwrap_or(m.w0_gen);
        let entries = fs::read_dir(dir).ctx(|| format!("listing {}", dir.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            // Temp files (`MANIFEST.json.tmp`, `roots.bin.tmp`: a crash before their rename)
            // first, since their names also split into a stem and an extension.
            let orphan = if name.ends_with(".tmp") {
                true
            } else if let Some(g) = name
                .strip_prefix("wal-")
                .and_then(|s| s.strip_suffix(".log"))
            {
                g.parse::<u64>().is_ok_and(|g| g < oldest_gen)
            } else if let Some((stem, ext)) = name.split_once('.') {
                ["val", "idx", "mht", "blm"].contains(&ext)
                    && stem.parse::<u64>().is_ok_and(|id| !runs.contains(&id))
            } else {
                false
            };
            if orphan {
                fs::remove_file(entry.path()).ctx(|| format!("removing orphan {name}"))?;
            }
        }
        Ok(())
    }

    /// The parameters.
    pub const fn params(&self) -> &Params {
        &self.params
    }

    /// The structures of the state, newest first (the order of `H_state` and of every search).
    fn structures(&self) -> Vec<Structure0<'_>> {
        let mut out = Vec::new();
        if !self.w0.tree.is_empty() {
            out.push(Structure0::Tree(&self.w0.tree));
        }
        if let Some((t, _)) = &self.m0
            && !t.is_empty()
        {
            out.push(Structure0::Tree(t));
        }
        for l in &self.levels {
            out.extend(l.w.iter().rev().map(|r| Structure0::Run(r)));
            out.extend(l.m.iter().rev().map(|r| Structure0::Run(r)));
        }
        out
    }

    fn compute_root(&mut self) -> Option<B256> {
        let _ = self.w0.tree.root_hash();
        let digests: Vec<B256> = self
            .structures()
            .iter()
            .filter_map(|s| match s {
                Structure0::Tree(t) => tree_digest(t),
                Structure0::Run(r) => Some(r.digest()),
            })
            .collect();
        Some(hash::state(self.params.fanout, digests.iter()))
    }

    fn alloc_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn level(&mut self, i: usize) -> &mut Level {
        if self.levels.len() <= i {
            self.levels.resize_with(i + 1, Level::default);
        }
        match self.levels.get_mut(i) {
            Some(l) => l,
            None => unreachable!("levels were just extended to index {i}"),
        }
    }

    fn open_run(&self, meta: RunMeta) -> Result<Arc<Run>, Error> {
        Run::open(&self.dir, meta, self.params.fanout)
            .map(Arc::new)
            .ctx(|| format!("opening new run {}", meta.id))
    }

    fn build(&mut self, source: &MergeSource) -> Result<Arc<Run>, Error> {
        let id = self.alloc_id();
        let meta =
            build_run(&self.dir, id, self.params, source).ctx(|| format!("building run {id}"))?;
        self.open_run(meta)
    }

    /// Flushes and merges what the block filled (Alg. 1), or moves the checkpoints (Alg. 5).
    /// Returns whether level 0 moved to a new log generation (the caller opens it).
    fn maintain(&mut self) -> Result<bool, Error> {
        if self.w0.tree.len() < self.params.l0_capacity {
            return Ok(false);
        }
        self.dirty = true;
        let _ = self.w0.tree.root_hash();
        let full = std::mem::replace(&mut self.w0.tree, MbTree::new(self.params.fanout));
        let old_gen = self.w0.generation;
        self.w0.generation = old_gen + 1;
        if self.params.async_merge {
            // Commit checkpoint of level 0: wait for the previous flush, then swap.
            if let Some(p) = self.pending0.take() {
                let run = p.wait().ctx(|| "flushing level 0".into())?;
                self.level(0).w.push(Arc::new(run));
                if let Some((_, g)) = self.m0.take() {
                    self.obsolete_gens.push(g);
                }
            }
            let tree = Arc::new(full);
            self.m0 = Some((tree.clone(), old_gen));
            let id = self.alloc_id();
            self.pending0 = Some(spawn_merge(
                self.dir.clone(),
                id,
                self.params,
                self.opts,
                MergeSource::Tree(tree),
            ));
            let mut i = 0;
            while self.level(i).w.len() >= self.params.size_ratio {
                if let Some(p) = self.level(i).pending.take() {
                    let run = p.wait().ctx(|| format!("merging level {}", i + 1))?;
                    self.level(i + 1).w.push(Arc::new(run));
                    let old = std::mem::take(&mut self.level(i).m);
                    self.obsolete_runs.extend(old.iter().map(|r| r.meta.id));
                }
                let runs = std::mem::take(&mut self.level(i).w);
                self.level(i).m = runs.clone();
                let id = self.alloc_id();
                let p = spawn_merge(
                    self.dir.clone(),
                    id,
                    self.params,
                    self.opts,
                    MergeSource::Runs(runs),
                );
                self.level(i).pending = Some(p);
                i += 1;
            }
        } else {
            let run = self.build(&MergeSource::Tree(Arc::new(full)))?;
            self.obsolete_gens.push(old_gen);
            self.level(0).w.push(run);
            let mut i = 0;
            while self.level(i).w.len() >= self.params.size_ratio {
                let runs = std::mem::take(&mut self.level(i).w);
                let run = self.build(&MergeSource::Runs(runs.clone()))?;
                self.obsolete_runs.extend(runs.iter().map(|r| r.meta.id));
                self.level(i + 1).w.push(run);
                i += 1;
            }
        }
        Ok(true)
    }

    fn open_wal(&mut self) -> Result<(), Error> {
        let (wal, _) = Wal::open(&self.dir, self.w0.generation, !self.opts.no_sync)
            .ctx(|| "opening the new WAL generation".into())?;
        self.wal = wal;
        Ok(())
    }

    fn manifest(&self) -> Manifest {
        Manifest {
            format: FORMAT,
            params: self.params,
            head: self.head,
            next_id: self.next_id,
            w0_gen: self.w0.generation,
            m0_gen: self.m0.as_ref().map(|(_, g)| *g),
            m0_merging_into: self.pending0.as_ref().map(|p| p.id),
            levels: self
                .levels
                .iter()
                .map(|l| LevelRecord {
                    w: l.w.iter().map(|r| r.meta).collect(),
                    m: l.m.iter().map(|r| r.meta).collect(),
                    merging_into: l.pending.as_ref().map(|p| p.id),
                })
                .collect(),
        }
    }

    /// Queues the manifest for the writer thread, which writes it atomically (roots file
    /// synced, temp file, fsync, rename, fsync the directory) and then removes what it no longer
    /// names. Blocks are durable by their log records alone, so the manifest may lag; `open`
    /// catches up from the logs.
    fn write_manifest(&mut self) -> Result<(), Error> {
        let bytes = serde_json::to_vec_pretty(&self.manifest())
            .map_err(|e| Error::Corrupt(format!("encoding the manifest: {e}")))?;
        self.writer.send(ManifestJob {
            bytes: Some(bytes),
            gens: std::mem::take(&mut self.obsolete_gens),
            runs: std::mem::take(&mut self.obsolete_runs),
            done: None,
        })?;
        self.dirty = false;
        Ok(())
    }

    /// Applies block `number`'s writes (state key → value; a later write to a key wins) and
    /// returns `H_state`. The block is durable when this returns.
    pub fn apply(&mut self, number: u64, writes: &[(B256, Word)]) -> Result<B256, Error> {
        let root = self.stage(number, writes)?;
        self.commit()?;
        Ok(root)
    }

    /// The first half of [`ColeEngine::apply`]: applies the block in memory (building the runs
    /// a flush or merge needs) and returns `H_state`, without making the block durable. A node
    /// stages, seals the header with the root, commits its own store, then calls
    /// [`ColeEngine::commit`]; a crash in between reopens at the previous block, and the node
    /// replays the block from its store. After a failed commit, reopen the engine.
    pub fn stage(&mut self, number: u64, writes: &[(B256, Word)]) -> Result<B256, Error> {
        if self.staged.is_some() {
            return Err(Error::Block("a staged block is not committed yet".into()));
        }
        let want = self.head.map_or(0, |h| h + 1);
        if number != want {
            return Err(Error::Block(format!(
                "block {number} applied, expected {want}"
            )));
        }
        let merged: BTreeMap<B256, Word> = writes.iter().copied().collect();
        for (key, value) in &merged {
            self.w0.tree.insert(Entry {
                key: *key,
                block: number,
                value: *value,
            });
        }
        let rotated = self.maintain()?;
        let root = self.compute_root().unwrap_or_default();
        self.head = Some(number);
        self.roots.push(root);
        self.staged = Some(Staged {
            record: Record {
                block: number,
                root,
                writes: merged.into_iter().collect(),
            },
            rotated,
        });
        Ok(root)
    }

    /// Makes the staged block durable (see [`ColeEngine::stage`]).
    pub fn commit(&mut self) -> Result<(), Error> {
        let Some(staged) = self.staged.take() else {
            return Ok(());
        };
        self.writer.check()?;
        let number = staged.record.block;
        let mut rec = Vec::with_capacity(40);
        rec.extend_from_slice(&number.to_be_bytes());
        rec.extend_from_slice(staged.record.root.as_slice());
        self.roots_file
            .write_all(&rec)
            .ctx(|| format!("appending to {ROOTS}"))?;
        // The record goes to the generation that received the writes; it is the block's
        // commit point. A crash before the manifest below is finished by `open`.
        self.wal
            .append(&staged.record)
            .ctx(|| format!("logging block {number}"))?;
        if staged.rotated {
            self.open_wal()?;
        }
        if self.dirty {
            self.write_manifest()?;
        }
        Ok(())
    }

    /// The last applied block.
    pub const fn head_block(&self) -> Option<u64> {
        self.head
    }

    /// `H_state` after `block`.
    pub fn root_at(&self, block: u64) -> Result<B256, Error> {
        usize::try_from(block)
            .ok()
            .and_then(|b| self.roots.get(b))
            .copied()
            .ok_or_else(|| Error::Block(format!("block {block} is not stored")))
    }

    /// The value of state key `key` after `block` (zero if never written).
    pub fn get_at(&self, key: &B256, block: u64) -> Result<Word, Error> {
        let q = (*key, block);
        for s in self.structures() {
            let found = match s {
                Structure0::Tree(t) => t.floor(&q).filter(|e| e.key == *key).copied(),
                Structure0::Run(r) => r.floor(&q).ctx(|| format!("reading run {}", r.meta.id))?,
            };
            if let Some(e) = found {
                return Ok(e.value);
            }
        }
        Ok([0; 32])
    }

    /// The latest value of state key `key` (zero if never written): the search stops at the
    /// first structure, newest first, holding a version of it.
    pub fn get_latest(&self, key: &B256) -> Result<Word, Error> {
        self.get_at(key, u64::MAX)
    }

    /// A provenance proof for `key` over `lo..=hi`, against the current `H_state` (the root
    /// of [`ColeEngine::head_block`]).
    pub fn prove_history(&self, key: &B256, lo: u64, hi: u64) -> Result<HistoryProof, Error> {
        if lo > hi {
            return Err(Error::Block(format!("range {lo}..={hi} is empty")));
        }
        let mut parts = Vec::new();
        let mut stopped = false;
        for s in self.structures() {
            if stopped {
                parts.push(Part::Skipped(match s {
                    Structure0::Tree(t) => tree_digest(t).unwrap_or_default(),
                    Structure0::Run(r) => r.digest(),
                }));
                continue;
            }
            let structure = match s {
                Structure0::Tree(t) => Structure {
                    kind: StructureKind::MbTree,
                    n: t.len(),
                    height: t.height(),
                    tree: t
                        .prove_range(key, lo, hi)
                        .ok_or_else(|| Error::Corrupt("an empty MB-tree in the list".into()))?,
                },
                Structure0::Run(r) => Structure {
                    kind: StructureKind::Run {
                        bloom: r.meta.bloom,
                    },
                    n: r.meta.n,
                    height: hash::complete_height(r.meta.n, self.params.fanout),
                    tree: r
                        .prove_range(key, lo, hi)
                        .ctx(|| format!("proving from run {}", r.meta.id))?,
                },
            };
            stopped = holds_version_at(&structure.tree, key, lo);
            parts.push(Part::Searched(structure));
        }
        Ok(HistoryProof {
            key: *key,
            lo,
            hi,
            fanout: self.params.fanout,
            parts,
        })
    }

    /// Structures in the state (MB-tree groups and runs) and merges in flight.
    pub fn shape(&self) -> (usize, usize) {
        let pending = usize::from(self.pending0.is_some())
            + self.levels.iter().filter(|l| l.pending.is_some()).count();
        (self.structures().len(), pending)
    }

    /// Bytes in the engine's directory.
    pub fn bytes_on_disk(&self) -> u64 {
        lightprov_engine_api::kv::dir_size(&self.dir)
    }
}

/// The digest of a level-0 group whose hashes are current.
fn tree_digest(t: &MbTree) -> Option<B256> {
    t.cached_digest()
}

/// Whether a partial tree reveals a version of `key` at or before `lo` (the early stop).
fn holds_version_at(t: &lightprov_types::cole::Tree, key: &B256, lo: u64) -> bool {
    use lightprov_types::cole::Tree;
    match t {
        Tree::Leaf(e) => e.key == *key && e.block <= lo,
        Tree::Hash(_) => false,
        Tree::Node(c) => c.iter().any(|x| holds_version_at(x, key, lo)),
    }
}

impl Drop for ColeEngine {
    fn drop(&mut self) {
        // Merges in flight finish writing before the files can be reopened.
        if let Some(p) = self.pending0.take() {
            let _ = p.wait();
        }
        for l in &mut self.levels {
            if let Some(p) = l.pending.take() {
                let _ = p.wait();
            }
        }
    }
}

impl StateEngine for ColeEngine {
    type Proof = HistoryProof;
    type Error = Error;

    fn apply_block(&mut self, number: u64, writes: &[StateWrite]) -> Result<B256, Error> {
        let w: Vec<(B256, Word)> = writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
        self.apply(number, &w)
    }

    fn head(&self) -> Option<u64> {
        self.head
    }

    fn root(&self, block: u64) -> Result<B256, Error> {
        self.root_at(block)
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word, Error> {
        self.get_at(&key.state_key(), block)
    }

    /// A one-block provenance proof, against the *current* root (COLE proves history from
    /// the head's state; see [`StateEngine::proof_anchor`]).
    fn prove(&self, key: &Key, block: u64) -> Result<HistoryProof, Error> {
        self.prove_history(&key.state_key(), block, block)
    }

    fn proof_anchor(&self, _block: u64) -> u64 {
        self.head.unwrap_or(0)
    }

    fn disk_bytes(&self) -> u64 {
        self.bytes_on_disk()
    }
}

/// Replays log records into a level-0 tree, extending the roots and the head.
fn replay(
    tree: &mut MbTree,
    roots: &mut Vec<B256>,
    head: &mut Option<u64>,
    last_root: &mut Option<B256>,
    generation: u64,
    records: Vec<Record>,
) -> Result<(), Error> {
    for rec in records {
        for (key, value) in &rec.writes {
            tree.insert(Entry {
                key: *key,
                block: rec.block,
                value: *value,
            });
        }
        let want = roots.len() as u64;
        if rec.block > want {
            return Err(Error::Corrupt(format!(
                "WAL generation {generation} jumps to block {} after {want}",
                rec.block
            )));
        }
        roots.truncate(usize::try_from(rec.block).unwrap_or(usize::MAX));
        roots.push(rec.root);
        *head = Some(head.map_or(rec.block, |h| h.max(rec.block)));
        *last_root = Some(rec.root);
    }
    Ok(())
}
