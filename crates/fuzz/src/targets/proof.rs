//! What the proof families' targets share: seeds from the family's `valid` vectors, each with
//! the query it answers (held fixed while its bytes are mutated) and its honest answer; the
//! verdict on an input; and the regression vector for a failing one. A family supplies only
//! what differs ([`ProofQuery`], implemented on what its seeds ask): how it reads its seeds, how
//! it verifies, its final check, its structure-aware mutations and its dictionary.
//!
//! An input fails when bytes other than the seed's are accepted with an answer other than the
//! honest one.

use lightprov_types::{ErrorCode, Rejection, hex};
use serde_json::{Value, json};

use crate::{Corpus, Depth, Finding, Outcome, Regression, Target, rng::Rng, vectors};

/// One seed: its name, the vector it comes from, what it asks, its honest bytes, and the
/// vector inputs a regression file is made of (the failing bytes put in place of these).
#[derive(Debug)]
pub struct Seed<Q> {
    /// The seed's name (the vector's, unless a vector holds several seeds).
    pub name: String,
    /// The vector it comes from.
    pub vector: String,
    /// What it asks.
    pub query: Q,
    /// The honest bytes.
    pub bytes: Vec<u8>,
    /// The vector's inputs.
    pub inputs: Value,
}

impl<Q> Seed<Q> {
    /// The one seed of a vector whose `proof` answers `query`.
    pub fn proof(name: &str, inputs: &Value, query: Q) -> anyhow::Result<Vec<Self>> {
        Ok(vec![Self {
            name: name.to_owned(),
            vector: name.to_owned(),
            query,
            bytes: vectors::data(inputs, "proof")?,
            inputs: inputs.clone(),
        }])
    }
}

/// What a proof family's target supplies, implemented on what its seeds ask.
pub trait ProofQuery: std::fmt::Debug + Send + Sync + Sized + 'static {
    /// The target's name, and its vectors' family (`tests/vectors/<NAME>`).
    const NAME: &'static str;
    /// What accepted bytes prove (compared with the honest answer).
    type Answer: PartialEq + std::fmt::Debug + Send + Sync;

    /// The seeds of the vector `name` (usually one: [`Seed::proof`]).
    fn seeds(name: &str, inputs: &Value) -> anyhow::Result<Vec<Seed<Self>>>;

    /// What `bytes` prove for this query.
    fn verify(&self, bytes: &[u8]) -> Result<Self::Answer, impl Rejection>;

    /// The code of the verifier's final check (the root, hash, seal or pairing comparison).
    fn last(&self) -> ErrorCode;

    /// How deep a rejection of `data` with `code` went: by default read from the code
    /// (`BAD_ENCODING`: undecoded; [`Self::last`]: the final check; any other: decoded).
    fn depth(&self, _data: &[u8], code: ErrorCode) -> Depth {
        match code {
            ErrorCode::BadEncoding => Depth::Undecoded,
            c if c == self.last() => Depth::Final,
            _ => Depth::Decoded,
        }
    }

    /// A structure-aware mutation of `data`, a seed of this query or a mutant of one.
    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>>;

    /// Tokens worth inserting.
    fn dictionary() -> Vec<Vec<u8>>;

    /// A regression vector's inputs: the seed's, with `data` as the proof.
    fn regression_inputs(inputs: &Value, data: &[u8]) -> Option<Value> {
        let mut inputs = inputs.clone();
        inputs["proof"] = json!(hex::encode(data));
        Some(inputs)
    }
}

/// A seed's query with its honest answer.
#[derive(Debug)]
struct Judged<Q: ProofQuery> {
    query: Q,
    honest: Q::Answer,
    vector: String,
    inputs: Value,
}

/// The target of a proof family, whose seeds ask `Q`.
#[derive(Debug)]
pub struct ProofTarget<Q: ProofQuery> {
    corpus: Corpus,
    judged: Vec<Judged<Q>>,
}

impl<Q: ProofQuery> ProofTarget<Q> {
    /// Reads the seeds from `tests/vectors/<Q::NAME>/valid`: each must verify.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut judged = Vec::new();
        for (name, v) in vectors::load(Q::NAME, "valid")? {
            for s in Q::seeds(&name, &v["inputs"])? {
                let honest = s
                    .query
                    .verify(&s.bytes)
                    .map_err(|e| anyhow::anyhow!("seed {}: {e}", s.name))?;
                judged.push(Judged {
                    query: s.query,
                    honest,
                    vector: s.vector,
                    inputs: s.inputs,
                });
                seeds.push((s.name, s.bytes));
            }
        }
        anyhow::ensure!(!seeds.is_empty(), "no {} seeds", Q::NAME);
        Ok(Self {
            corpus: Corpus {
                name: Q::NAME,
                seeds,
            },
            judged,
        })
    }
}

impl<Q: ProofQuery> Target for ProofTarget<Q> {
    /// A finding if another answer is accepted; accepted (a benign variant if `data` differs
    /// from the seed's bytes); or rejected, at the depth [`ProofQuery::depth`] reads.
    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let j = &self.judged[seed];
        match j.query.verify(data) {
            Ok(answer) if answer != j.honest => Err(Finding::new(
                "forgery",
                format!("accepted {answer:?}; the honest answer is {:?}", j.honest),
            )),
            Ok(_) => {
                let mut o = Outcome::new(Depth::Accepted, "ok");
                o.benign_variant = data != self.corpus.seeds[seed].1.as_slice();
                Ok(o)
            }
            Err(e) => Ok(Outcome::rejected(j.query.depth(data, e.code()), &e)),
        }
    }

    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn mutate(&self, seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        self.judged[seed].query.mutate(data, rng)
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        Q::dictionary()
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let j = &self.judged[seed];
        let inputs = Q::regression_inputs(&j.inputs, data)?;
        Some(vectors::regression_vector(
            Q::NAME,
            Q::NAME,
            &j.vector,
            inputs,
            why,
            data,
        ))
    }
}
