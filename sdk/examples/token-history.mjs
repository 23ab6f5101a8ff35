#!/usr/bin/env node
// A token balance's history, verified: against a lightprov-node started with `--workload erc20`
// (an ERC-20 deployed at genesis, tokens moved between its workload accounts every block), finds
// the slot of the token's balances mapping by a verified probe — balanceOf(holder) run in
// WebAssembly over proven state, compared with the proven candidate slots — then draws the
// holder's balance over the last blocks by several provenance families, each proof checked
// against a verified header. The families must agree.
//
//   LIGHTPROV_RPC=http://127.0.0.1:8545 LIGHTPROV_GENESIS=0x… LIGHTPROV_SIGNER=0x… \
//     node sdk/examples/token-history.mjs [holder]
//
// LIGHTPROV_CHAIN_ID (default 1337) is the chain id verified calls run with; the holder defaults
// to the workload's account 0; LIGHTPROV_TOKEN overrides the token (default: the workload's).
import { LightClient, historySchemes } from '@lightprov/sdk';
import { computeAddress, concat, getCreateAddress, keccak256, toBeHex, toUtf8Bytes } from 'ethers';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`set ${k} (see the comment at the top of this file)`);
  return v;
};
// The workload's token: the first contract its genesis deployer (0xdede…de) creates.
const token = process.env.LIGHTPROV_TOKEN ?? getCreateAddress({ from: '0x' + 'de'.repeat(20), nonce: 0 });
// Workload account i's key is keccak256("lightprov transfer account" ‖ i as 8 bytes): public.
const holder = process.argv[2] ?? computeAddress(keccak256(concat([toUtf8Bytes('lightprov transfer account'), toBeHex(0, 8)])));

const client = await LightClient.connect({
  rpc: env('LIGHTPROV_RPC'),
  trust: { genesisHash: env('LIGHTPROV_GENESIS'), signers: [env('LIGHTPROV_SIGNER')], chainId: BigInt(process.env.LIGHTPROV_CHAIN_ID ?? 1337) },
  // lightprov-node runs every fork through Prague from genesis.
  chainConfig: { londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 },
});

// No slot given: the probe finds it (client.keys.erc20Balance(token, holder, { slot: 0 }) skips it).
const key = await client.keys.erc20Balance(token, holder);
const { probe } = key;
console.log(`token ${token}, holder ${holder}`);
console.log(
  `probe at block #${probe.header.number}: balanceOf = ${probe.balance} by a verified call ` +
    `(${probe.call.rounds} round trips; proven: ${probe.call.proven.map((p) => `${p.address} with ${p.slots.length} slot(s)`).join(', ')}); ` +
    `of the mapping entries at slots 0..${probe.candidates - 1}, only slot ${key.slotIndex}'s holds it`,
);
console.log(`history key: storage slot ${key.slot} of the token (state key ${key.stateKey})`);

const toBlock = probe.header.number;
const fromBlock = toBlock > 31n ? toBlock - 31n : 0n;
let first;
for (const { id: scheme } of historySchemes()) {
  const h = await client.getHistoryDetailed(key, { fromBlock, toBlock, scheme });
  const points = h.points.map((p) => `#${p.block}: ${p.value}`).join(', ');
  console.log(`${scheme.padEnd(9)} ${h.points.length} points over blocks ${fromBlock}..${toBlock} (${h.proofBytes} B of proof, ${h.verifyMs.toFixed(1)} ms): ${points}`);
  first ??= points;
  if (points !== first) throw new Error(`${scheme} disagrees with the first family`);
}
const last = (await client.getHistory(key, { fromBlock: toBlock, toBlock, scheme: 'cole' }))[0];
if (last.value !== probe.balance) throw new Error('the history does not end at the verified balanceOf');
console.log(`every family agrees, and the history ends at the verified balanceOf (${probe.balance})`);
