#!/usr/bin/env node
// Talks to a running lightprov-node the way a wallet would: sends a transfer with an ethers
// Wallet, then reads both balances and the sender's balance history through LightClient, which
// believes nothing it cannot verify from the trust anchor (the genesis hash and signer the node
// printed when it started).
//
//   LIGHTPROV_RPC=http://127.0.0.1:8545 LIGHTPROV_GENESIS=0x… LIGHTPROV_SIGNER=0x… LIGHTPROV_KEY=0x… \
//     node sdk/examples/live-node.mjs
import { LightClient } from '@lightprov/sdk';
import { BrowserProvider, JsonRpcProvider, Network, Wallet, formatEther, parseEther } from 'ethers';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`set ${k} (see the comment at the top of this file)`);
  return v;
};
const url = env('LIGHTPROV_RPC');
const trust = { genesisHash: env('LIGHTPROV_GENESIS'), signers: [env('LIGHTPROV_SIGNER')] };

const client = await LightClient.connect({ rpc: [url], trust });
const rpc = new JsonRpcProvider(url, Network.from(1337), { staticNetwork: true, pollingInterval: 100 });
const alice = new Wallet(env('LIGHTPROV_KEY'), rpc);
const bob = Wallet.createRandom().address;

console.log(`\nSending 1.5 ETH from ${alice.address} to a new account ${bob} with an ethers Wallet…`);
const receipt = await (await alice.sendTransaction({ to: bob, value: parseEther('1.5') })).wait();
console.log(`included in block #${receipt.blockNumber} (${receipt.blockHash})`);

const block = BigInt(receipt.blockNumber);
const header = await client.getHeader(block); // every header from genesis: hash links and seals
const [a, b, bobBefore] = await Promise.all([
  client.getBalance(alice.address, block),
  client.getBalance(bob, block),
  client.getAccount(bob, [], block - 1n),
]);
console.log(`verified header #${header.number}: state root ${header.stateRoot}`);
console.log(`verified balance of ${alice.address}: ${formatEther(a)} ETH`);
console.log(`verified balance of ${bob}: ${formatEther(b)} ETH (one block earlier it was proven absent: ${!bobBefore.exists})`);

// The history of Alice's balance, proven by one COLE provenance proof against the header's
// coleRoot, and by one eth_getProof per block (the baseline): the two must agree.
const key = client.keys.balance(alice.address);
const from = block > 8n ? block - 8n : 0n;
const cole = await client.getHistoryDetailed(key, { fromBlock: from, toBlock: block, scheme: 'cole' });
const mpt = await client.getHistoryDetailed(key, { fromBlock: from, toBlock: block, scheme: 'mpt' });
console.log(`verified history of ${alice.address}'s balance over blocks ${from}..${block}:`);
for (const p of cole.points) console.log(`  from block ${p.block}: ${formatEther(p.value)} ETH`);
console.log(
  `  COLE: one ${cole.proofBytes}-byte proof against block #${cole.anchor.number}, verified in ${cole.verifyMs.toFixed(2)} ms; ` +
    `MPT: ${mpt.proofBytes} bytes of eth_getProof answers, ${mpt.verifyMs.toFixed(2)} ms; same points: ${JSON.stringify(cole.points, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) === JSON.stringify(mpt.points, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
);

// Alice's balance by LVMT: a proof of its latest version against the header's lvmtRoot, with
// parameters pinned by the genesis header (the node's dev setup is INSECURE: public τ).
const lvmt = await client.getValueDetailed(key, { scheme: 'lvmt' });
console.log(
  `LVMT: balance ${formatEther(lvmt.value)} ETH, version ${lvmt.version} written in block ${lvmt.writtenAt}; ` +
    `${lvmt.proofBytes}-byte proof against block #${lvmt.block}, verified in ${lvmt.verifyMs.toFixed(1)} ms`,
);

// The same client as an EIP-1193 provider: ethers reads go through proof verification.
const verified = new BrowserProvider(client.asEip1193(), Network.from(1337));
console.log(`ethers over LightClient.asEip1193(): balance of ${bob} = ${formatEther(await verified.getBalance(bob))} ETH`);
rpc.destroy();
