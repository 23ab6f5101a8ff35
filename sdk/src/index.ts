/**
 * @lightprov/sdk — read Ethereum state from untrusted nodes and believe it only after checking
 * its proof in WebAssembly.
 *
 * ```ts
 * import { init, verifyAccountProof, verifyHeader } from '@lightprov/sdk';
 * await init();
 * const header = verifyHeader(block, trustedHash);
 * const account = verifyAccountProof(proof, header.stateRoot);
 * ```
 *
 * Proof outlines and forgeries (for demo pages and tests) are `@lightprov/sdk/inspect`, with a
 * wasm module of their own; this entry never loads it.
 */
export { IN_ALL, type InitOptions, WASM_FAMILIES, type WasmFamily, type WasmModuleName, type WasmSource, init, loadFamily, modulesFor } from './init.js';
export { ERROR_CODES, type ErrorCode, FailoverError, NodeFaultError, ReorgError, RpcError, StaleHeadError, VerificationError, isVerificationError } from './errors.js';
export {
  type AccountProofJson,
  type ProvenTransactionBytes,
  type StorageProofJson,
  type TransactionProofJson,
  type VerifiedAccount,
  type VerifiedSlot,
  encodeAccountProof,
  encodeNodes,
  encodeTransactionProof,
  parseAccountProof,
  verifyAccountProof,
  verifyMptProof,
  verifyTransactionProof,
} from './families/mpt.js';
export { type BlockHeaderJson, type HeaderLayout, type VerifiedHeader, encodeHeader, headerRlp, verifyHeader } from './header.js';
export {
  type AccessListResult,
  CallLimitError,
  type CallLimits,
  type CallOptions,
  type CallProgress,
  type CallRequest,
  type CallStats,
  type ChainConfig,
  DEFAULT_CALL_LIMITS,
  ExecutionError,
  type Quantity,
  revertReason,
} from './evm.js';
export { type JsonRpcSender, fetchVerifiedAccount } from './provider.js';
export { orderedTrieRoot } from './trie.js';
export { decodeReceipt, decodeTransaction, encodeReceipt, encodeTransaction, signedPayload } from './envelope.js';
export { type IndexedReceipt, type IndexedTransaction, type VerifiedTransaction, type VerifiedTransactionReceipt, transactionSender } from './transactions.js';
export { type BlobScheduleEntry, GAS_PER_BLOB, blobBaseFee, blobScheduleArg } from './blobs.js';
export { type LogFilter, MAX_LOG_RANGE, type VerifiedLog, type VerifiedReceipt, bloomMayContain } from './logs.js';
export { EIP1193_METHODS, type Eip1193ErrorData, type MethodClass, ProviderRpcError, VERIFICATION_FAILED } from './eip1193.js';
export {
  type DiffQuery,
  type DiffScheme,
  type Eip1193Options,
  type Eip1193Provider,
  type HeaderProgress,
  type HistoryProgress,
  type HistoryQuery,
  type HistoryScheme,
  LightClient,
  type LightClientOptions,
  type Progress,
  type ProvenAccountJson,
  type RangeQuery,
  type RangeScheme,
  type Trust,
  type ValueQuery,
  type ValueScheme,
  type VerifiedDiff,
  type VerifiedHistory,
  type VerifiedRange,
  type VerifiedValue,
} from './client.js';
export { type StateKey, type Version, changesFromValues, changesFromVersions, stateKeys, wordHex } from './history.js';
export {
  type ClientKeys,
  DEFAULT_PROBE_SLOTS,
  type Erc20BalanceKey,
  type Erc20BalanceOptions,
  type Erc20Probe,
  SlotProbeError,
  type SlotProbeReason,
  slotFromProbe,
} from './erc20.js';
export { type ColeHistory, type ColeProofArgs, type ColeScheme, coleRootOf, verifyColeHistory } from './families/cole.js';
export {
  type LvmtAnchor,
  LvmtParams,
  type LvmtVersion,
  lvmtRootsOf,
  verifyLvmtHistory,
  verifyLvmtProof,
} from './families/lvmt.js';
export { bytesToHex, hexToBytes } from './hex.js';
export { type HeaderCommitment, commitmentOf, headerCommitments } from './commitments.js';
export { type FamilyInfo, READERS, type TamperClass, families, historyProof, historySchemes } from './families/index.js';
export type { Family, FamilyContext, HistoryProof, SchemeInfo } from './families/family.js';
export { type BlockTag, blockNumberArg, blockTagArg, stateKeyArg } from './args.js';
