/**
 * The beacon family in the SDK: a sync-committee light client (the Altair light-client protocol,
 * Altair to Fulu) that starts from a beacon block root the app trusts and follows the chain
 * through the light-client objects a beacon node serves (`/eth/v1/beacon/light_client/*` as
 * SSZ, each with the fork its `Eth-Consensus-Version` header names). Every check — the
 * committee's BLS signature, participation, the finality, committee and execution branches,
 * slot order, periods — is the core's, in its own wasm module (`beacon`), which only apps that
 * import `@lightprov/sdk/beacon` load. Networks (fork versions and epochs, genesis validators
 * root, genesis time) come from the core too.
 *
 * ```ts
 * import { BeaconStore, loadBeacon } from '@lightprov/sdk/beacon';
 * await loadBeacon();
 * const store = BeaconStore.bootstrap({ network: 'mainnet', trustedBlockRoot, bootstrap: { fork: 'deneb', ssz } });
 * store.processUpdate({ fork: 'deneb', ssz: update });
 * const { execution } = store.finalizedHeader(); // execution.blockNumber, .blockHash, .stateRoot
 * ```
 *
 * Verification is synchronous once the module is loaded. A rejection is a `VerificationError`
 * with the core's code and the field at fault (`update.finality_branch`); a wrong argument is a
 * `TypeError` or `RangeError` naming it.
 */
export * from '../beacon-store.js';
export { BeaconHead as BeaconFollower, type BeaconExecutionHead, type BeaconStorage, type BeaconTrust } from '../beacon-head.js';
