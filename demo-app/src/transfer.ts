/**
 * Send a transfer from a dev account: an ethers Wallet signs it and sends it through the
 * verified provider (`client.asEip1193()`: reads and the receipt are verified, the send's hash is checked),
 * then the page shows the receipt and its Transfer event verified (the block's receipts rebuild
 * its receiptsRoot), reads both balances back verified at the inclusion block and redraws the
 * sender's history with the new point.
 */
import type { VerifiedTransactionReceipt } from '@lightprov/sdk';
import { BrowserProvider, Network, Wallet, formatEther, formatUnits, getAddress, isAddress, parseEther } from 'ethers';

import { app, client, workloadAccount } from './state.js';
import { byId, errorBox, h, hash, verifiedMark, withButton } from './ui.js';

function step(list: HTMLElement, text: string | Node, kind: 'doing' | 'done' | 'note' = 'doing'): HTMLElement {
  list.querySelector('.doing')?.classList.replace('doing', 'done');
  const li = h('li', { class: kind }, text);
  list.append(li);
  return li;
}

async function send(): Promise<void> {
  const out = byId('transfer-out');
  const cfg = app.config;
  const c = client();
  const fromIndex = Number(byId<HTMLSelectElement>('transfer-from').value);
  const dev = cfg?.accounts[fromIndex];
  const toSel = byId<HTMLSelectElement>('transfer-to').value;
  const to = toSel === 'custom' ? byId<HTMLInputElement>('transfer-custom').value.trim() : toSel;
  const amount = byId<HTMLInputElement>('transfer-amount').value.trim();
  const list = h('ol', { class: 'steps' });
  out.replaceChildren(list);
  try {
    if (!dev) throw new TypeError('no dev account: the page needs the demo server’s /demo-config.json for keys');
    if (!isAddress(to)) throw new TypeError(`“${to}” is not an address`);
    let value: bigint;
    try {
      value = parseEther(amount);
    } catch {
      throw new TypeError(`“${amount}” is not an amount of ETH`);
    }
    // Sending needs fee data, which no proof covers: named, so it passes unverified (the gas
    // estimate is verified: the transfer run in wasm over proven state; the receipt is verified).
    const eip = c.asEip1193({ allowUnverified: ['eth_gasPrice', 'eth_maxPriorityFeePerGas'] });
    const provider = new BrowserProvider(eip, Network.from(cfg?.chainId ?? 1337), { staticNetwork: true, pollingInterval: 250 });
    const wallet = new Wallet(dev.key, provider);
    step(list, `Signing ${amount} ETH from dev ${fromIndex} to ${to.slice(0, 8)}…${to.slice(-4)} with an ethers Wallet; sending through the verified provider…`);
    const tx = await wallet.sendTransaction({ to, value });
    step(list, h('span', {}, 'Sent ', hash(tx.hash), ' (the returned hash is keccak256 of the signed transaction). Waiting for a block…'));
    const receipt = await tx.wait();
    if (!receipt) throw new Error('the transaction was dropped');
    const block = BigInt(receipt.blockNumber);
    step(list, `Receipt verified: status ${receipt.status}, block #${block} (its block’s receipts rebuild the header’s receiptsRoot). Checking the balances…`);
    const header = await c.getHeader(block);
    const verified = await c.getTransactionReceipt(tx.hash);
    if (!verified) throw new Error(`no node places ${tx.hash} in a block any more`);
    list.after(receiptCard(verified, header));
    if (!app.head || app.head.number < header.number) {
      app.head = header;
      app.bus.emit('head', header);
    }
    const [fromBal, toBal] = await Promise.all([c.getBalance(wallet.address, block), c.getBalance(to, block)]);
    step(
      list,
      h(
        'span',
        { 'data-block': String(block), id: 'transfer-verified' },
        `dev ${fromIndex}: ${formatEther(fromBal)} ETH, recipient: ${formatEther(toBal)} ETH `,
        verifiedMark('MPT proofs', header),
      ),
      'done',
    );
    step(list, 'Drawing the sender’s balance history with the new point…', 'note');
    app.bus.emit('transfer', { from: wallet.address, to, block });
    out.dataset['block'] = String(block);
  } catch (e) {
    list.querySelector('.doing')?.classList.replace('doing', 'failed');
    out.append(errorBox(e, 'Transfer'));
  }
}

/** topic0 of the node's Transfer events (EIP-7708's shape): keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** The verified receipt and its events, decoded where they are Transfer events. */
function receiptCard(r: VerifiedTransactionReceipt, header: { number: bigint; hash: string }): HTMLElement {
  const word = (t: string | undefined) => (t ? getAddress('0x' + t.slice(-40)) : '?');
  const short = (a: string) => `${a.slice(0, 8)}…${a.slice(-4)}`;
  const events = r.logs.map((l) =>
    l.topics[0] === TRANSFER_TOPIC
      ? h('li', { class: 'event' }, h('b', {}, 'Transfer'), ` ${short(word(l.topics[1]))} → ${short(word(l.topics[2]))}: ${formatEther(BigInt(l.data))} ETH `, h('span', { class: 'muted' }, `(log ${l.logIndex}, from ${short(l.address)})`))
      : h('li', { class: 'event' }, `log ${l.logIndex} from ${short(l.address)}, ${l.topics.length} topics`),
  );
  return h(
    'div',
    { class: 'receipt', id: 'transfer-receipt', 'data-events': String(r.logs.length) },
    h('h3', {}, 'Receipt'),
    h(
      'dl',
      {},
      h('dt', {}, 'transaction'),
      h('dd', {}, hash(r.transactionHash), ` at index ${r.transactionIndex} of block #${r.blockNumber}`),
      h('dt', {}, 'status'),
      h('dd', {}, r.status === 1 ? 'success' : `failed (${String(r.status)})`),
      h('dt', {}, 'gas'),
      h('dd', {}, `${r.gasUsed} used at ${formatUnits(r.effectiveGasPrice, 'gwei')} gwei`),
      h('dt', {}, 'events'),
      h('dd', {}, events.length ? h('ul', {}, ...events) : 'none'),
    ),
    verifiedMark('receipt and events (the block’s receipts rebuild receiptsRoot; its transactions, transactionsRoot)', header),
  );
}

export function setupTransfer(): void {
  const cfg = app.config;
  const from = byId<HTMLSelectElement>('transfer-from');
  const to = byId<HTMLSelectElement>('transfer-to');
  const accounts = cfg?.accounts ?? [];
  from.replaceChildren(...accounts.map((a, i) => h('option', { value: String(i) }, `dev ${i} · ${a.address.slice(0, 8)}…${a.address.slice(-4)}`)));
  from.value = accounts.length > 1 ? '1' : '0';
  to.replaceChildren(
    ...accounts.map((a, i) => h('option', { value: a.address }, `dev ${i} · ${a.address.slice(0, 8)}…${a.address.slice(-4)}`)),
    ...(cfg?.workload?.kind === 'transfer' ? [0, 1, 2].map((i) => h('option', { value: workloadAccount(i) }, `acct ${i} · ${workloadAccount(i).slice(0, 8)}…`)) : []),
    h('option', { value: 'custom' }, 'another address…'),
  );
  to.value = accounts[2]?.address ?? 'custom';
  const sync = () => {
    byId('transfer-custom-row').hidden = to.value !== 'custom';
  };
  to.addEventListener('change', sync);
  sync();
  if (accounts.length === 0) {
    byId('transfer-out').replaceChildren(h('p', { class: 'muted' }, 'Sending needs a dev account key: open the page from `npm run demo`.'));
  }
  byId<HTMLFormElement>('transfer-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (app.client) void withButton(byId<HTMLButtonElement>('send-transfer'), send);
  });
  app.bus.on('connected', () => {
    byId<HTMLButtonElement>('send-transfer').disabled = accounts.length === 0;
  });
}
