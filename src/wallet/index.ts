/** The wallet token library: parse (docs/api.md#wallet-tokens), verify and decrypt wallet payment tokens; test mode's PKI and token minting. */
export {
  parseWalletToken,
  WalletTokenError,
  type DecryptedWalletPayment,
  type WalletPaymentToken,
  type WalletProcessingKey,
  type WalletTokenFailure,
  type WalletTrust,
} from './token.ts';
export { openWalletToken } from './open.ts';
export { mintTestWalletToken, testWalletPki } from './test-pki.ts';
export { walletVendorRootPem } from './vendor-root.ts';
