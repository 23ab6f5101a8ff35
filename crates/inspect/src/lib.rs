#![doc = include_str!("../README.md")]

use std::{fmt::Display, string::String, vec::Vec};

use lightprov_types::{DecodeError, ErrorCode, Rejection, codec::Spans, family::Tamper};
use serde::Serialize;

pub mod cole;
pub mod forkless;
pub mod lvmt;
pub mod mbt;
pub mod mpt;
pub mod pos;
#[cfg(feature = "wasm")]
pub mod wasm;

/// What a node of an outline stands for (the SDK's `ProofNode['kind']`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// The whole proof.
    Root,
    /// A structure (COLE MB-tree or run, a trie, LVMT's latest-version proof in a history).
    Structure,
    /// An LVMT AMT level.
    Level,
    /// An inner node (trie node, Merkle node, AMT opening, tuple tree).
    Node,
    /// A revealed entry that is not an answer (a neighbour, a leaf, a version out of range).
    Leaf,
    /// A pruned subtree or an audit-path hash.
    Sibling,
    /// What the proof answers.
    Result,
    /// An LVMT tuple.
    Tuple,
    /// A digest standing for a whole part (COLE's skipped structures, LVMT quotient points).
    Digest,
}

/// One node of an outline (the SDK's `ProofNode`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    /// What it stands for.
    pub kind: NodeKind,
    /// e.g. `run #2 (n = 96, height 4)`, `branch node`.
    pub label: String,
    /// Full `0x`-hex of what this node hashes or commits to, recomputed from the proof.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// e.g. `value 0x…`, `nibble 0xa (3 of 16 slots taken) → 0x12ab…cdef`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Wire bytes `[from, to)` this node was decoded from, as the decoder reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<(usize, usize)>,
    /// Its parts, in wire order.
    pub children: Vec<Node>,
}

impl Node {
    /// A node with a label and nothing else.
    pub fn new(kind: NodeKind, label: impl Into<String>) -> Self {
        Self {
            kind,
            label: label.into(),
            hash: None,
            detail: None,
            range: None,
            children: Vec::new(),
        }
    }

    /// Sets the hash (full `0x`-hex of `h`).
    pub fn hash(mut self, h: &[u8]) -> Self {
        self.hash = Some(hex(h));
        self
    }

    /// Sets the detail.
    pub fn detail(mut self, d: impl Into<String>) -> Self {
        self.detail = Some(d.into());
        self
    }

    /// Sets the wire range, if the decoder reported one.
    pub fn range(mut self, r: Option<(usize, usize)>) -> Self {
        self.range = r;
        self
    }

    /// Appends a child.
    pub fn child(mut self, c: Node) -> Self {
        self.children.push(c);
        self
    }

    /// Appends children.
    pub fn children(mut self, c: impl IntoIterator<Item = Node>) -> Self {
        self.children.extend(c);
        self
    }

    /// This node and every node below it, depth first.
    pub fn walk(&self) -> Vec<&Node> {
        let mut out = std::vec![self];
        for c in &self.children {
            out.extend(c.walk());
        }
        out
    }
}

/// A root recomputed from the proof beside the one the header holds (the SDK's `RootCheck`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RootCheck {
    /// e.g. `coleRoot`, `storageHash (slot 0x0000…0001)`.
    pub label: String,
    /// `0x`-hex; empty if the proof's paths fit no tree (LVMT).
    pub recomputed: String,
    /// `0x`-hex of what the header (or the claimed account) says.
    pub expected: String,
    /// `recomputed` is non-empty and equals `expected`.
    pub matches: bool,
}

impl RootCheck {
    /// Compares `recomputed` with `expected`.
    pub fn new(label: impl Into<String>, recomputed: String, expected: String) -> Self {
        let matches = !recomputed.is_empty() && recomputed == expected;
        Self {
            label: label.into(),
            recomputed,
            expected,
            matches,
        }
    }
}

/// Which proof an outline draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// A COLE provenance proof.
    Cole,
    /// A COLE* provenance proof.
    ColeStar,
    /// A forkless LiveDB proof of a key's value or history.
    Forkless,
    /// An LVMT proof of a key's latest value or absence.
    Lvmt,
    /// An LVMT history proof.
    LvmtHistory,
    /// A Merkle Bucket Tree proof of a key's value or absence at one block.
    Mbt,
    /// A Merkle Bucket Tree history proof.
    MbtHistory,
    /// An `eth_getProof` answer.
    Mpt,
    /// A POS-Tree path proof of a key's value or absence at one block.
    Pos,
    /// A POS-Tree history proof (one node set, a path per block).
    PosHistory,
}

/// A proof drawn as a tree (the SDK's `ProofOutline`).
///
/// Outlining never verifies: a forged proof is drawn like an honest one, with every hash
/// recomputed from what it holds, and its recomputed root simply differs. Only bytes that do
/// not decode are refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outline {
    /// Which proof.
    pub family: Family,
    /// Size of the proof's wire encoding.
    pub bytes: usize,
    /// The proof.
    pub tree: Node,
    /// What the proof recomputes against what the header says (the main comparison).
    pub root: RootCheck,
    /// Every comparison the outline made, `root`'s included.
    pub roots: Vec<RootCheck>,
}

impl Outline {
    /// The outline of `proof`, drawn as `tree`, with its main comparison and every comparison
    /// it made.
    pub(crate) fn new(
        family: Family,
        proof: &[u8],
        tree: Node,
        root: RootCheck,
        roots: Vec<RootCheck>,
    ) -> Self {
        Self {
            family,
            bytes: proof.len(),
            tree,
            root,
            roots,
        }
    }

    /// [`Outline::new`] for a proof that makes one comparison.
    pub(crate) fn single(family: Family, proof: &[u8], tree: Node, root: RootCheck) -> Self {
        Self::new(family, proof, tree, root.clone(), std::vec![root])
    }

    /// The outline as JSON (the shape the SDK's `ProofOutline` declares).
    pub fn to_json(&self) -> String {
        // Serializing plain structs of strings and numbers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A forgery of an honest proof: the tampered encoding, what was done, and the code the
/// verifier rejects it with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forged {
    /// The forged wire bytes.
    pub proof: Vec<u8>,
    /// What was done, in words.
    pub description: String,
    /// The code the verifier gives the forgery.
    pub code: ErrorCode,
}

/// Why a forgery could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForgeError {
    /// The honest proof does not decode.
    Decode(DecodeError),
    /// This tamper does not apply to this proof (a `RangeError` in JS).
    NotApplicable(String),
}

impl From<DecodeError> for ForgeError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

impl Display for ForgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Decode(e) => write!(f, "{e}"),
            Self::NotApplicable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ForgeError {}

pub(crate) fn not_applicable<T>(what: impl Display) -> Result<T, ForgeError> {
    Err(ForgeError::NotApplicable(std::format!("{what}")))
}

/// The registry's tamper class `kind` of `family`, if the inspector forges it (`forgeries`, the
/// family's list); not applicable otherwise.
pub(crate) fn tamper_class(
    family: &'static lightprov_types::Family,
    forgeries: &[&str],
    kind: &str,
) -> Result<&'static Tamper, ForgeError> {
    match family.tamper(kind) {
        Some(t) if forgeries.contains(&kind) => Ok(t),
        Some(_) => not_applicable(std::format!(
            "{kind}: a {} tamper class the inspector does not forge ({})",
            family.name,
            forgeries.join(", ")
        )),
        None => not_applicable(std::format!(
            "{kind}: not a {} tamper class ({})",
            family.name,
            forgeries.join(", ")
        )),
    }
}

/// The forgery, if `code` is an answer of its class; not applicable otherwise (the verifier
/// answers this tamper of this proof with a code of another class: it is not a forgery of
/// this class).
pub(crate) fn labelled(t: &Tamper, forged: Forged) -> Result<Forged, ForgeError> {
    if t.answers(forged.code) {
        Ok(forged)
    } else {
        not_applicable(std::format!(
            "{}: the verifier answers this proof's forgery with {}, not the class's {}",
            t.name,
            forged.code,
            t.alt.map_or_else(
                || String::from(t.code.as_str()),
                |a| std::format!("{} or {}", t.code, a)
            )
        ))
    }
}

/// The forgery labelled with the code the verifier gave it (`verdict`, on the forged bytes);
/// not applicable if the verifier accepted it.
pub(crate) fn judged<T, E: Rejection>(
    class: &Tamper,
    proof: Vec<u8>,
    description: String,
    verdict: Result<T, E>,
) -> Result<Forged, ForgeError> {
    match verdict {
        Err(e) => labelled(
            class,
            Forged {
                proof,
                description,
                code: e.code(),
            },
        ),
        Ok(_) => not_applicable("the verifier accepts this tamper of this proof"),
    }
}

/// A `value-changed` forgery's description, with the wire byte it changed when the encoding
/// kept its length.
pub(crate) fn with_wire_byte(
    kind: &str,
    honest: &[u8],
    forged: &[u8],
    description: String,
) -> String {
    match first_difference(honest, forged) {
        Some(at) if forged.len() == honest.len() && kind == "value-changed" => {
            std::format!("{description}; wire byte {at}")
        }
        _ => description,
    }
}

/// The root node of the outline of `proof`: its label and detail, over the whole encoding.
pub(crate) fn root_node(label: String, detail: impl Into<String>, proof: &[u8]) -> Node {
    Node::new(NodeKind::Root, label)
        .detail(detail)
        .range(Some((0, proof.len())))
}

/// Adds to an outline's detail that the proof answers blocks `answered`, when they are not the
/// `asked` ones.
pub(crate) fn note_range(detail: &mut String, answered: (u64, u64), asked: (u64, u64)) {
    if answered != asked {
        detail.push_str(&std::format!(
            "; the proof answers blocks {}..={}, not {}..={}",
            answered.0,
            answered.1,
            asked.0,
            asked.1
        ));
    }
}

/// Adds to an outline's detail that the proof is for the key `proven`, when it is not the
/// `asked` one: `name` writes a key, `noun` comes before the proof's (`"key "`, or nothing when
/// `name` says what the key is).
pub(crate) fn note_key<K: PartialEq + ?Sized>(
    detail: &mut String,
    noun: &str,
    proven: &K,
    asked: &K,
    name: fn(&K) -> String,
) {
    if proven != asked {
        detail.push_str(&std::format!(
            "; the proof is for {noun}{}, not the asked {}",
            name(proven),
            name(asked)
        ));
    }
}

/// The span a decoder reported for `path`.
pub(crate) fn span(spans: &Spans, path: &str) -> Option<(usize, usize)> {
    spans.get(path)
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

fn digit(n: u8) -> char {
    char::from(DIGITS.get(usize::from(n)).copied().unwrap_or(b'0'))
}

fn push_hex(s: &mut String, b: &[u8]) {
    for x in b {
        s.push(digit(x >> 4));
        s.push(digit(x & 15));
    }
}

/// Full lowercase `0x`-hex.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    push_hex(&mut s, b);
    s
}

/// `0xabcd…1234` for a hex string longer than 14 characters; the string itself otherwise.
pub fn short_hex(h: &str) -> String {
    let chars: Vec<char> = h.chars().collect();
    if chars.len() <= 14 {
        return String::from(h);
    }
    let head: String = chars.iter().take(6).collect();
    let tail: String = chars.iter().skip(chars.len() - 4).collect();
    std::format!("{head}…{tail}")
}

/// `0xabcd…1234` (the whole hex if short).
pub fn short(b: &[u8]) -> String {
    short_hex(&hex(b))
}

/// A big-endian number as `0x` and its hex digits without leading zeros (`0x0` for zero).
pub fn hex_number(b: &[u8]) -> String {
    let first = b.iter().position(|x| *x != 0).unwrap_or(b.len());
    let rest = b.get(first..).unwrap_or_default();
    let mut s = String::with_capacity(2 + 2 * rest.len());
    s.push_str("0x");
    match rest.split_first() {
        None => s.push('0'),
        Some((top, low)) => {
            if *top >= 16 {
                push_hex(&mut s, &[*top]);
            } else {
                s.push(digit(*top));
            }
            push_hex(&mut s, low);
        }
    }
    s
}

/// A 256-bit word as a number: [`hex_number`], abbreviated like a hash when it has more than 16
/// digits.
pub fn word(w: &[u8; 32]) -> String {
    let n = hex_number(w);
    if n.len() > 18 { short(w) } else { n }
}

/// A big-endian number of any length in decimal.
pub fn decimal(b: &[u8]) -> String {
    let mut n: Vec<u8> = b.iter().copied().skip_while(|x| *x == 0).collect();
    if n.is_empty() {
        return String::from("0");
    }
    let mut digits = Vec::new();
    while !n.is_empty() {
        let mut rem = 0u32;
        for x in n.iter_mut() {
            let cur = (rem << 8) | u32::from(*x);
            *x = u8::try_from(cur / 10).unwrap_or(0);
            rem = cur % 10;
        }
        digits.push(char::from(b'0' + u8::try_from(rem).unwrap_or(0)));
        let lead = n.iter().take_while(|x| **x == 0).count();
        n.drain(..lead);
    }
    digits.iter().rev().collect()
}

/// The first byte where two encodings differ.
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_hashes_are_written_like_the_sdk_did() {
        let mut w = [0u8; 32];
        assert_eq!(word(&w), "0x0");
        w[31] = 5;
        assert_eq!(word(&w), "0x5");
        w[30] = 0x1f;
        assert_eq!(word(&w), "0x1f05");
        assert_eq!(word(&[0x73; 32]), "0x7373…7373");
        assert_eq!(short(&[1, 2, 3]), "0x010203");
        assert_eq!(short(&[0xab; 20]), "0xabab…abab");
        assert_eq!(short_hex("0x0a0b0c"), "0x0a0b0c");
        assert_eq!(short_hex("0x123456789abcdef"), "0x1234…cdef");
        assert_eq!(hex(&[0xab, 0x01]), "0xab01");
        assert_eq!(hex_number(&[0, 0, 0x0a, 0xbc]), "0xabc");
        assert_eq!(hex_number(&[]), "0x0");
        assert_eq!(decimal(&[]), "0");
        assert_eq!(decimal(&[0x01, 0x00]), "256");
        assert_eq!(
            decimal(&[0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00]),
            "1000000000000000000"
        );
        assert_eq!(
            decimal(&[0xff; 32]),
            "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        );
    }

    #[test]
    fn a_forgery_keeps_its_class_only_with_a_code_the_class_answers() {
        let forged = |code| Forged {
            proof: std::vec![1],
            description: String::from("d"),
            code,
        };
        let cole = &lightprov_types::cole::FAMILY;
        let t = cole.tamper("value-changed").unwrap();
        assert_eq!(
            labelled(t, forged(ErrorCode::RootMismatch)),
            Ok(forged(ErrorCode::RootMismatch))
        );
        // The verifier answering with another class's code: not labelled value-changed.
        let Err(ForgeError::NotApplicable(m)) = labelled(t, forged(ErrorCode::IncompleteRange))
        else {
            panic!("labelled with a code the class does not answer")
        };
        assert_eq!(
            m,
            "value-changed: the verifier answers this proof's forgery with INCOMPLETE_RANGE, not \
             the class's ROOT_MISMATCH"
        );
        // A class's alternative code is one of its answers.
        let lvmt = &lightprov_types::lvmt::FAMILY;
        let t = lvmt.tamper("level-dropped").unwrap();
        assert!(labelled(t, forged(ErrorCode::LevelMismatch)).is_ok());
        assert!(labelled(t, forged(ErrorCode::HistoryMismatch)).is_ok());
        assert!(labelled(t, forged(ErrorCode::PairingCheckFailed)).is_err());
        // Only classes of the family that the inspector makes.
        assert_eq!(
            tamper_class(cole, &["value-changed"], "value-changed"),
            Ok(cole.tamper("value-changed").unwrap())
        );
        for kind in ["bloom-changed", "stale-tuple", "x"] {
            assert!(matches!(
                tamper_class(cole, &["value-changed"], kind),
                Err(ForgeError::NotApplicable(_))
            ));
        }
    }

    #[test]
    fn an_outline_serializes_to_the_sdk_shape() {
        let tree = Node::new(NodeKind::Root, "r \"1\"")
            .hash(&[0xaa; 2])
            .range(Some((0, 3)))
            .child(Node::new(NodeKind::Leaf, "x").detail("d"));
        let root = RootCheck::new("coleRoot", "0x01".into(), "0x01".into());
        let o = Outline {
            family: Family::ColeStar,
            bytes: 3,
            tree,
            root: root.clone(),
            roots: std::vec![root],
        };
        assert_eq!(
            o.to_json(),
            "{\"family\":\"cole-star\",\"bytes\":3,\"tree\":{\"kind\":\"root\",\"label\":\"r \\\"1\\\"\",\
             \"hash\":\"0xaaaa\",\"range\":[0,3],\"children\":[{\"kind\":\"leaf\",\"label\":\"x\",\
             \"detail\":\"d\",\"children\":[]}]},\"root\":{\"label\":\"coleRoot\",\"recomputed\":\
             \"0x01\",\"expected\":\"0x01\",\"matches\":true},\"roots\":[{\"label\":\"coleRoot\",\
             \"recomputed\":\"0x01\",\"expected\":\"0x01\",\"matches\":true}]}"
        );
        assert!(!RootCheck::new("x", String::new(), String::new()).matches);
    }
}
