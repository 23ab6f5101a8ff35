#!/usr/bin/env node
// Generates the language-neutral MPT and header vectors in tests/vectors/{mpt,header}/{valid,invalid}
// from the real data in tests/vectors/mpt/sources (eth_getProof answers, block headers, and the
// ethereum/tests TrieTests files). Run: `npm run vectors`. Deterministic: same sources, same files.
//
// Valid vectors are cross-checked with an independent implementation (@ethereumjs/mpt) before they
// are written. Each invalid vector applies one tamper class to one valid vector; its expected error
// follows from the construction (see tests/vectors/README.md), never from running our verifier.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createMPT, createMerkleProof, verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SOURCES = path.join(HERE, 'mpt', 'sources');
const GENERATOR = 'tests/vectors/generate.mjs';
const KECCAK_EMPTY = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
// A well-formed leaf that belongs to no proof here: what an attacker would append.
const FOREIGN_NODE = '0x' + Buffer.from(RLP.encode([Uint8Array.of(0x20, 0xaa), new TextEncoder().encode('appended')])).toString('hex');

const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const bytes = (h) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const keccak = (b) => keccak_256(b);
const quantity = (v) => '0x' + BigInt(v).toString(16);
const pad32 = (v) => '0x' + BigInt(v).toString(16).padStart(64, '0');
const clone = (x) => JSON.parse(JSON.stringify(x));
const firstNibble = (b) => b[0] >> 4;

function flipHex(h, at) {
  const b = bytes(h);
  const i = at ?? Math.floor(b.length / 2);
  b[i] ^= 0x01;
  return hex(b);
}

function assert(cond, msg) {
  if (!cond) throw new Error(`generator: ${msg}`);
}

const written = { mpt: { valid: 0, invalid: 0 }, header: { valid: 0, invalid: 0 } };

function resetDirs() {
  for (const fam of ['mpt', 'header']) {
    for (const kind of ['valid', 'invalid']) {
      const d = path.join(HERE, fam, kind);
      fs.rmSync(d, { recursive: true, force: true });
      fs.mkdirSync(d, { recursive: true });
    }
  }
}

function write(family, name, vector) {
  const kind = vector.expected.ok ? 'valid' : 'invalid';
  const file = path.join(HERE, family, kind, `${name}.json`);
  assert(!fs.existsSync(file), `duplicate vector name ${name}`);
  fs.writeFileSync(file, JSON.stringify({ generator: GENERATOR, ...vector }, null, 2) + '\n');
  written[family][kind]++;
}

/** Applies the node-list tamper classes to `list` (a node array inside `base`), at `field`. */
function nodeTampers(list, { rootIsEmpty }) {
  const out = [];
  const n = list.length;
  if (n === 0) return out;
  out.push(['extra-node', [...list, FOREIGN_NODE], 'EXTRA_NODES']);
  const d = Math.min(1, n - 1);
  out.push(['duplicate-node', [...list.slice(0, d + 1), list[d], ...list.slice(d + 1)], 'DUPLICATE_NODE']);
  if (n >= 2) {
    const s = [...list];
    [s[n - 2], s[n - 1]] = [s[n - 1], s[n - 2]];
    out.push(['reordered-nodes', s, 'NODES_OUT_OF_ORDER']);
    out.push(['flipped-byte-in-last-node', [...list.slice(0, n - 1), flipHex(list[n - 1])], 'NODE_HASH_MISMATCH']);
  }
  if (!rootIsEmpty) out.push(['truncated', list.slice(0, n - 1), 'TRUNCATED_PROOF']);
  out.push(['flipped-byte-in-root-node', [flipHex(list[0]), ...list.slice(1)], 'ROOT_MISMATCH']);
  return out;
}

/** A deterministic 20-byte address whose keccak path starts with a nibble other than `avoid`'s. */
function otherAddress(address) {
  const avoid = firstNibble(keccak(bytes(address)));
  for (let i = 0; ; i++) {
    const a = keccak(new TextEncoder().encode(`lightprov wrong key ${i}`)).slice(12);
    if (firstNibble(keccak(a)) !== avoid) return hex(a);
  }
}

function otherSlot(slot) {
  const avoid = firstNibble(keccak(bytes(pad32(slot))));
  for (let i = 1n; ; i++) {
    const s = pad32(BigInt(slot) + i);
    if (firstNibble(keccak(bytes(s))) !== avoid) return s;
  }
}

// ---------------------------------------------------------------- account proofs (eth_getProof)

async function checkWithEthereumjs(src) {
  const root = bytes(src.stateRoot);
  const leaf = await verifyMerkleProof(keccak(bytes(src.address)), src.accountProof.map(bytes), { root });
  const exists = leaf !== null;
  if (exists) {
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf);
    assert(BigInt(hex(nonce.length ? nonce : [0])) === BigInt(src.nonce), `${src.name}: nonce`);
    assert(BigInt(hex(balance.length ? balance : [0])) === BigInt(src.balance), `${src.name}: balance`);
    assert(hex(storageRoot) === src.storageHash.toLowerCase(), `${src.name}: storageHash`);
    assert(hex(codeHash) === src.codeHash.toLowerCase(), `${src.name}: codeHash`);
  }
  const storageRoot = exists ? bytes(src.storageHash) : bytes(EMPTY_ROOT);
  for (const s of src.storageProof) {
    const v = s.proof.length
      ? await verifyMerkleProof(keccak(bytes(pad32(s.key))), s.proof.map(bytes), { root: storageRoot })
      : null;
    const proven = v === null ? 0n : BigInt(hex(RLP.decode(v)));
    assert(proven === BigInt(s.value), `${src.name}: storage ${s.key}`);
  }
  return exists;
}

async function accountVectors() {
  const files = fs.readdirSync(SOURCES).filter((f) => f.endsWith('.json')).sort();
  for (const file of files) {
    const src = JSON.parse(fs.readFileSync(path.join(SOURCES, file), 'utf8'));
    src.name = file.replace(/\.json$/, '');
    const exists = await checkWithEthereumjs(src);
    const proof = {
      address: src.address,
      balance: src.balance,
      nonce: src.nonce,
      codeHash: src.codeHash,
      storageHash: src.storageHash,
      accountProof: src.accountProof,
      storageProof: src.storageProof.map(({ key, value, proof }) => ({ key, value, proof })),
    };
    const source = { source: src.source, chain: src.chain, blockNumber: src.blockNumber ?? null, notes: src.notes ?? '' };
    const name = `account-${src.name}`;
    const v = (what, inputs, expected) => ({
      description: `${src.name}: ${what}`,
      ...source,
      inputs,
      expected,
    });
    write('mpt', name, v('real eth_getProof answer', { stateRoot: src.stateRoot, proof }, {
      ok: true,
      exists,
      balance: quantity(proof.balance),
      nonce: quantity(proof.nonce),
      codeHash: exists ? proof.codeHash.toLowerCase() : KECCAK_EMPTY,
      storageHash: exists ? proof.storageHash.toLowerCase() : EMPTY_ROOT,
      storage: proof.storageProof.map((s) => ({ key: pad32(s.key), value: quantity(s.value) })),
    }));

    const bad = (tamper, mutate, error, field) => {
      const p = clone(proof);
      let root = src.stateRoot;
      const r = mutate(p);
      if (typeof r === 'string') root = r;
      write('mpt', `${name}--${tamper}`, v(tamper, { stateRoot: root, proof: p }, field === undefined ? { error } : { error, field }));
    };

    for (const [tamper, list, error] of nodeTampers(proof.accountProof, { rootIsEmpty: false })) {
      bad(`account-${tamper}`, (p) => void (p.accountProof = list), error, 'accountProof');
    }
    if (proof.accountProof.length >= 2) {
      bad('account-wrong-address', (p) => void (p.address = otherAddress(p.address)), 'KEY_MISMATCH', 'accountProof');
    }
    bad('wrong-state-root', () => flipHex(src.stateRoot, 31), 'ROOT_MISMATCH', 'accountProof');
    bad('wrong-balance', (p) => void (p.balance = quantity(BigInt(p.balance) + 1n)), 'VALUE_MISMATCH', 'balance');
    bad('wrong-nonce', (p) => void (p.nonce = quantity(BigInt(p.nonce) + 1n)), 'VALUE_MISMATCH', 'nonce');
    bad('wrong-code-hash', (p) => void (p.codeHash = flipHex(KECCAK_EMPTY, 0)), 'VALUE_MISMATCH', 'codeHash');
    if (exists) {
      bad('wrong-storage-hash', (p) => void (p.storageHash = flipHex(p.storageHash, 0)), 'VALUE_MISMATCH', 'storageHash');
    }
    bad('bad-hex-balance', (p) => void (p.balance = '0xzz'), 'BAD_ENCODING', 'balance');
    bad('short-address', (p) => void (p.address = p.address.slice(0, 40)), 'BAD_ENCODING', 'address');
    bad('odd-hex-node', (p) => void (p.accountProof[0] = p.accountProof[0] + '0'), 'BAD_ENCODING', 'accountProof[0]');
    bad('oversized-proof', (p) => void (p.accountProof = Array(66).fill('0x80')), 'BAD_ENCODING', 'accountProof');

    const s0 = proof.storageProof[0];
    if (s0 !== undefined) {
      const field = 'storageProof[0]';
      const storageRootEmpty = !exists || proof.storageHash.toLowerCase() === EMPTY_ROOT;
      for (const [tamper, list, error] of nodeTampers(s0.proof, { rootIsEmpty: storageRootEmpty })) {
        bad(`storage-${tamper}`, (p) => void (p.storageProof[0].proof = list), error, field);
      }
      if (s0.proof.length >= 2) {
        bad('storage-wrong-slot', (p) => void (p.storageProof[0].key = otherSlot(s0.key)), 'KEY_MISMATCH', field);
      }
      bad('storage-wrong-value', (p) => void (p.storageProof[0].value = quantity(BigInt(s0.value) + 1n)), 'VALUE_MISMATCH', field);
      bad('storage-missing-key', (p) => void delete p.storageProof[0].key, 'BAD_ENCODING', 'storageProof[0].key');
    }
  }
}

// ---------------------------------------------------------------- TrieTests-derived trie proofs

const TRIETESTS = path.join(SOURCES, 'trietests');
const enc = (s, hexEncoded) =>
  s === null ? null : hexEncoded || s.startsWith('0x') ? bytes(s.startsWith('0x') ? s : '0x' + s) : new TextEncoder().encode(s);

async function trieVectors() {
  const files = [
    ['trietest.json', false],
    ['trieanyorder.json', false],
    ['trietest_secureTrie.json', true],
    ['trieanyorder_secureTrie.json', true],
    ['hex_encoded_securetrie_test.json', true],
  ];
  const commit = fs.readFileSync(path.join(TRIETESTS, 'SOURCE.md'), 'utf8').match(/Snapshot commit: `([0-9a-f]{40})`/)[1];
  let inlineSeen = 0;
  for (const [file, secure] of files) {
    const cases = JSON.parse(fs.readFileSync(path.join(TRIETESTS, file), 'utf8'));
    for (const [caseName, c] of Object.entries(cases)) {
      const hexEncoded = c.hexEncoded === true;
      const ops = Array.isArray(c.in) ? c.in : Object.entries(c.in);
      const trie = await createMPT({ useKeyHashing: secure });
      const model = new Map();
      for (const [k, v] of ops) {
        const key = enc(k, hexEncoded);
        const val = enc(v, hexEncoded);
        if (val === null || val.length === 0) {
          await trie.del(key);
          model.delete(hex(key));
        } else {
          await trie.put(key, val);
          model.set(hex(key), val);
        }
      }
      assert(hex(trie.root()) === c.root, `${file}/${caseName}: root ${hex(trie.root())} != ${c.root}`);

      // Probes: every present key, plus absent ones (deleted keys, a prefix, an extension, a stranger).
      const present = [...model.keys()].map(bytes);
      const absent = [];
      for (const [k] of ops) {
        const key = enc(k, hexEncoded);
        if (!model.has(hex(key))) absent.push(key);
        if (key.length > 1) absent.push(key.slice(0, key.length - 1));
        if (key.length < 32) absent.push(Uint8Array.from([...key, 0x7a])); // the wasm takes keys of up to 32 bytes
      }
      absent.push(new TextEncoder().encode('lightprov-absent'));
      // At most 6 present and 4 absent keys per case keep the vector set small.
      const seen = new Set();
      const unique = (keys) =>
        keys.filter((k) => {
          const h = hex(k);
          if (seen.has(h)) return false;
          seen.add(h);
          return true;
        });
      const probes = [...unique(present).slice(0, 6), ...unique(absent.filter((k) => !model.has(hex(k)))).slice(0, 4)];

      for (const [probeIndex, raw] of probes.entries()) {
        const path_ = secure ? keccak(raw) : raw;
        const value = model.get(hex(raw)) ?? null;
        // ethereumjs lists inline nodes too; eth_getProof (geth) lists only hashed ones: drop the
        // nodes under 32 bytes below the root.
        const full = await createMerkleProof(trie, raw);
        const proof = full.filter((n, i) => i === 0 || n.length >= 32).map(hex);
        inlineSeen += full.length - proof.length;
        const check = proof.length === 0 && c.root === EMPTY_ROOT ? null : await verifyMerkleProof(path_, proof.map(bytes), { root: trie.root() }).catch((e) => {
          throw new Error(`${file}/${caseName} key ${hex(raw)}: ethereumjs rejects ${JSON.stringify(proof)} (full ${full.map(hex)})`, { cause: e });
        });
        assert((check === null ? null : hex(check)) === (value === null ? null : hex(value)), `${file}/${caseName}: ethereumjs disagrees`);
        const root = c.root;
        const name = `trie-${file.replace(/\.json$/, '')}-${caseName}-${String(probeIndex).padStart(2, '0')}`;
        const source = { source: `ethereum/tests:TrieTests/${file}@${commit}`, case: caseName, rawKey: hex(raw), secure };
        const base = { root, key: hex(path_), value: value === null ? null : hex(value), proof };
        const what = value === null ? 'absent key' : 'present key';
        write('mpt', name, { description: `${file} ${caseName}: ${what}`, ...source, inputs: base, expected: { ok: true } });
        const bad = (tamper, change, error) =>
          write('mpt', `${name}--${tamper}`, {
            description: `${file} ${caseName}: ${what}, ${tamper}`,
            ...source,
            inputs: { ...base, ...change },
            expected: { error },
          });
        const emptyTrie = root === EMPTY_ROOT;
        for (const [tamper, list, error] of nodeTampers(proof, { rootIsEmpty: emptyTrie })) {
          bad(tamper, { proof: list }, error);
        }
        if (proof.length >= 2 && path_.length > 0) {
          const k2 = Uint8Array.from(path_);
          k2[0] ^= 0x80;
          bad('wrong-key', { key: hex(k2) }, 'KEY_MISMATCH');
        }
        bad('wrong-value', { value: value === null ? '0x01' : hex(Uint8Array.from([...value, 0x01])) }, 'VALUE_MISMATCH');
        if (value !== null) bad('claimed-absent', { value: null }, 'VALUE_MISMATCH');
        bad('wrong-root', { root: flipHex(root, 31) }, emptyTrie && proof.length === 0 ? 'TRUNCATED_PROOF' : 'ROOT_MISMATCH');
      }
    }
  }
  assert(inlineSeen > 0, 'no inline nodes in the TrieTests proofs');
  return inlineSeen;
}

// ---------------------------------------------------------------- forged, self-consistent roots
// A root that is the hash of a non-canonical node: only the structural checks can reject these.

function malformedVectors() {
  const leaf = (path, value) => RLP.encode([Uint8Array.from(path), value]);
  const key = Uint8Array.from([0x12, 0x34]);
  const deepLeaf = leaf([0x20, 0x34], new Uint8Array(40).fill(7));
  const cases = [
    ['branch-with-one-child', RLP.encode([...Array(15).fill(new Uint8Array(0)), keccak(Uint8Array.of(1)), new Uint8Array(0)])],
    ['branch-value-is-a-list', RLP.encode([...Array(16).fill(keccak(Uint8Array.of(1))), [Uint8Array.of(1)]])],
    ['three-items', RLP.encode([Uint8Array.of(0x20), Uint8Array.of(1), Uint8Array.of(2)])],
    ['leaf-with-empty-value', leaf([0x20, 0x12, 0x34], new Uint8Array(0))],
    ['bad-hex-prefix-flag', leaf([0x40, 0x12, 0x34], Uint8Array.of(1))],
    ['even-flag-with-padding-nibble', leaf([0x21, 0x12, 0x34], Uint8Array.of(1))],
    ['child-reference-of-5-bytes', RLP.encode([...Array(15).fill(keccak(Uint8Array.of(1))), Uint8Array.of(1, 2, 3, 4, 5), new Uint8Array(0)])],
    ['extension-child-is-a-leaf', RLP.encode([Uint8Array.of(0x11), keccak(deepLeaf)]), deepLeaf],
    ['not-a-list', RLP.encode(new Uint8Array(40).fill(1))],
    // key 0x1234 goes through slot 1 to a 5-byte leaf that is listed and hashed, not embedded
    ['short-node-referenced-by-hash', RLP.encode([new Uint8Array(0), keccak(leaf([0x32, 0x34], Uint8Array.of(0x76))), ...Array(7).fill(new Uint8Array(0)), keccak(Uint8Array.of(9)), ...Array(6).fill(new Uint8Array(0)), new Uint8Array(0)]), leaf([0x32, 0x34], Uint8Array.of(0x76))],
    // a branch whose second entry is an empty list posing as an embedded node
    ['junk-inline-child', RLP.encode([new Uint8Array(0), keccak(deepLeaf), ...Array(3).fill(new Uint8Array(0)), [], ...Array(10).fill(new Uint8Array(0)), new Uint8Array(0)])],
    ['trailing-bytes', Uint8Array.from([...leaf([0x20, 0x12, 0x34], new Uint8Array(40).fill(1)), 0])],
  ];
  for (const [name, root, ...rest] of cases) {
    const proof = [root, ...rest].map(hex);
    write('mpt', `trie-forged-${name}`, {
      description: `forged root over a non-canonical node: ${name}`,
      source: 'synthetic',
      inputs: { root: hex(keccak(root)), key: hex(key), value: null, proof },
      expected: { error: 'MALFORMED_NODE' },
    });
  }
}

// ---------------------------------------------------------------- transaction proofs (by block and index)
// lightprov_getTransactionProof answers for real mainnet blocks (tests/vectors/blocks): the
// encodings come from the SDK's encoders and must hash to each transaction's `hash`; the tries
// are @ethereumjs/mpt's and must have the header's roots.

const BLOCKS = path.join(HERE, 'blocks');
const loadBlock = (n) => JSON.parse(fs.readFileSync(path.join(BLOCKS, `mainnet-${n}.json`), 'utf8'));

/** The answers of a block, by index: its encodings in tries checked against its header. */
async function blockProver(n) {
  const { encodeReceipt, encodeTransaction } = await import('@lightprov/sdk');
  const { block, receipts } = loadBlock(n);
  const txs = block.transactions.map((t, i) => encodeTransaction(t, `transactions[${i}]`));
  txs.forEach((t, i) => assert(hex(keccak(t)) === block.transactions[i].hash, `block ${n} tx ${i}: encoding`));
  const lists = [txs, receipts.map((r, i) => encodeReceipt(r, `receipts[${i}]`))];
  const tries = [];
  for (const [k, items] of lists.entries()) {
    const trie = await createMPT();
    for (const [i, v] of items.entries()) await trie.put(RLP.encode(i), v);
    assert(hex(trie.root()) === block[k === 0 ? 'transactionsRoot' : 'receiptsRoot'], `block ${n}: root ${k}`);
    tries.push(trie);
  }
  const prove = async (index) => {
    const key = RLP.encode(index);
    const [transactionProof, receiptProof] = await Promise.all(tries.map(async (t) => (await createMerkleProof(t, key)).filter((x, i) => i === 0 || x.length >= 32).map(hex)));
    const at = (items) => (index < items.length ? hex(items[index]) : null);
    return { blockNumber: block.number, blockHash: block.hash, index: quantity(index), transaction: at(lists[0]), receipt: at(lists[1]), transactionProof, receiptProof };
  };
  return { block, prove };
}

async function transactionProofVectors() {
  const empty = await blockProver(1755634);
  const other = await blockProver(22196189);
  // (block, index): legacy and EIP-1559 in a small block, one past its end, a blob transaction,
  // a deep path in a large block, pre-Byzantium receipts, the empty block.
  const cases = [
    [19432673, [0, 3, 10, 11]],
    [21854576, [56]],
    [22196189, [200, 274]],
    [1150000, [0]],
    [1755634, [0]],
  ];
  for (const [n, indices] of cases) {
    const { block, prove } = n === 22196189 ? other : n === 1755634 ? empty : await blockProver(n);
    const roots = { transactionsRoot: block.transactionsRoot, receiptsRoot: block.receiptsRoot };
    for (const index of indices) {
      const answer = await prove(index);
      const present = answer.transaction !== null;
      const hash = present ? block.transactions[index].hash : undefined;
      const name = `txproof-mainnet-${n}-${index}`;
      const source = { source: `tests/vectors/blocks/mainnet-${n}.json`, block: block.number };
      const base = { ...roots, index: quantity(index), ...(hash ? { hash } : {}), proof: answer };
      const what = present ? `the transaction and receipt at index ${index}` : `index ${index}, past the block's end`;
      write('mpt', name, { description: `block ${n}: ${what}`, ...source, inputs: base, expected: { ok: true, transaction: answer.transaction, receipt: answer.receipt } });
      const bad = (tamper, inputs, error, field) =>
        write('mpt', `${name}--${tamper}`, { description: `block ${n}: ${what}, ${tamper}`, ...source, inputs, expected: { error, field } });
      for (const list of ['transactionProof', 'receiptProof']) {
        const emptyTrie = roots[list === 'transactionProof' ? 'transactionsRoot' : 'receiptsRoot'] === EMPTY_ROOT;
        for (const [tamper, nodes, error] of nodeTampers(answer[list], { rootIsEmpty: emptyTrie })) {
          const at = { EXTRA_NODES: nodes.length - 1, DUPLICATE_NODE: Math.min(1, answer[list].length - 1) + 1, NODES_OUT_OF_ORDER: nodes.length - 2, NODE_HASH_MISMATCH: nodes.length - 1, ROOT_MISMATCH: 0 }[error];
          // An absence proof ends at a branch: a foreign leaf after it is a node of no path (EXTRA_NODES), as after a leaf.
          bad(`${list === 'transactionProof' ? 'tx' : 'receipt'}-${tamper}`, { ...base, proof: { ...answer, [list]: nodes } }, error, at === undefined ? list : `${list}[${at}]`);
        }
      }
      if (!present) continue;
      const rootName = 'transactionsRoot';
      bad('wrong-root', { ...base, [rootName]: flipHex(roots[rootName], 31) }, 'ROOT_MISMATCH', 'transactionProof[0]');
      const j = index === 0 ? 1 : index - 1;
      if (j < block.transactions.length) {
        const theirs = await prove(j);
        bad('txproof-other-index', { ...base, proof: { ...theirs, index: answer.index } }, 'KEY_MISMATCH', undefined);
        bad('txproof-wrong-index', { ...base, proof: theirs }, 'KEY_MISMATCH', 'index');
        bad('txproof-claimed-other-transaction', { ...base, proof: { ...answer, transaction: theirs.transaction } }, 'VALUE_MISMATCH', 'transaction');
        bad('txproof-wrong-hash', { ...base, hash: block.transactions[j].hash }, 'TRANSACTION_HASH_MISMATCH', 'transaction');
      }
      if (n !== 22196189 && index < other.block.transactions.length) {
        bad('txproof-other-block-receipts', { ...base, proof: { ...answer, receiptProof: (await other.prove(index)).receiptProof } }, 'ROOT_MISMATCH', 'receiptProof[0]');
      }
      bad('txproof-receipt-missing', { ...base, receiptsRoot: EMPTY_ROOT, proof: { ...answer, receiptProof: (await empty.prove(index)).receiptProof, receipt: null } }, 'RECEIPT_MISMATCH', 'receiptProof');
      bad('txproof-too-many-nodes', { ...base, proof: { ...answer, transactionProof: Array(20).fill(answer.transactionProof[0]) } }, 'BAD_ENCODING', 'transactionProof');
    }
  }
}

// ---------------------------------------------------------------- headers

function headerFromRlp(rlpHex) {
  const f = RLP.decode(bytes(rlpHex)).map(hex);
  const q = (h) => (h === '0x' ? '0x0' : quantity(h));
  const names = ['parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'];
  const ints = new Set(['difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'baseFeePerGas', 'blobGasUsed', 'excessBlobGas']);
  const out = {};
  f.forEach((v, i) => (out[names[i]] = ints.has(names[i]) ? q(v) : v));
  out.hash = hex(keccak(bytes(rlpHex)));
  return out;
}

const LAYOUT = { 15: 'frontier', 16: 'london', 17: 'shanghai', 20: 'cancun', 21: 'prague' };
const OPTIONAL = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'];

function headerVectors() {
  const dir = path.join(SOURCES, 'headers');
  const sources = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const s = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    return { name: f.replace(/\.json$/, ''), source: s.source, header: s.header, notes: s.notes ?? '' };
  });
  const goerli = JSON.parse(fs.readFileSync(path.join(SOURCES, 'goerli-absent-storage-slot-8492954.json'), 'utf8'));
  sources.push({ name: 'goerli-8492954', source: goerli.source, header: headerFromRlp(goerli.headerRlp), notes: 'header JSON decoded from the RLP in the source; hash = keccak256 of that RLP' });

  for (const s of sources) {
    const h = s.header;
    const fields = 15 + OPTIONAL.filter((k) => h[k] !== undefined && h[k] !== null).length;
    const layout = LAYOUT[fields];
    assert(layout !== undefined, `${s.name}: ${fields} fields`);
    const header = Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'hash'));
    const base = { description: `${s.name}: ${layout} header`, source: s.source, notes: s.notes };
    const name = `header-${s.name}`;
    write('header', name, { ...base, inputs: { header, expectedHash: h.hash }, expected: { ok: true, layout, number: h.number } });
    const bad = (tamper, mutate, error, field) => {
      const x = clone(header);
      const expectedHash = mutate(x) ?? h.hash;
      write('header', `${name}--${tamper}`, { ...base, description: `${s.name}: ${tamper}`, inputs: { header: x, expectedHash }, expected: field ? { error, field } : { error } });
    };
    bad('wrong-hash', () => flipHex(h.hash, 31), 'HEADER_HASH_MISMATCH');
    bad('tampered-state-root', (x) => void (x.stateRoot = flipHex(x.stateRoot, 0)), 'HEADER_HASH_MISMATCH');
    bad('tampered-timestamp', (x) => void (x.timestamp = quantity(BigInt(x.timestamp) + 1n)), 'HEADER_HASH_MISMATCH');
    bad('missing-state-root', (x) => void delete x.stateRoot, 'BAD_ENCODING', 'stateRoot');
    bad('bad-hex-gas-used', (x) => void (x.gasUsed = '0xzz'), 'BAD_ENCODING', 'gasUsed');
    bad('short-miner', (x) => void (x.miner = x.miner.slice(0, 40)), 'BAD_ENCODING', 'miner');
    bad('long-nonce', (x) => void (x.nonce = x.nonce + '00'), 'BAD_ENCODING', 'nonce');
    if (layout === 'frontier') {
      bad('layout-gap', (x) => void (x.withdrawalsRoot = x.stateRoot), 'BAD_HEADER_LAYOUT');
    } else {
      bad('layout-gap', (x) => {
        delete x.baseFeePerGas;
        x.withdrawalsRoot ??= x.stateRoot;
      }, 'BAD_HEADER_LAYOUT');
    }
    if (layout === 'cancun' || layout === 'prague') {
      bad('layout-18-fields', (x) => {
        delete x.excessBlobGas;
        delete x.parentBeaconBlockRoot;
        delete x.requestsHash;
      }, 'BAD_HEADER_LAYOUT');
    }
  }
}

resetDirs();
await accountVectors();
const inline = await trieVectors();
malformedVectors();
await transactionProofVectors();
headerVectors();
console.log(`vectors: mpt ${written.mpt.valid} valid, ${written.mpt.invalid} invalid; header ${written.header.valid} valid, ${written.header.invalid} invalid; ${inline} inline nodes left out of TrieTests proofs`);
// Other families (cole: written by crates/engine-cole/examples/cole_vectors.rs) keep their counts.
const countsFile = path.join(HERE, 'counts.json');
const previous = fs.existsSync(countsFile) ? JSON.parse(fs.readFileSync(countsFile, 'utf8')) : {};
const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, typeof o[k] === 'object' ? sorted(o[k]) : o[k]]));
fs.writeFileSync(countsFile, JSON.stringify(sorted({ ...previous, ...written }), null, 2) + '\n');
