/** The provenance explorer: wires the panels together. */
import './style.css';

import { init } from '@lightprov/sdk';

import { setupAccounts } from './accounts.js';
import { setupBeacon } from './beacon.js';
import { setupCompare } from './compare.js';
import { setupConnect } from './connect.js';
import { setupForgery } from './forgery.js';
import { setupHistory } from './history.js';
import { setupInspector } from './inspector.js';
import { app, loadConfig } from './state.js';
import { setupToken } from './token.js';
import { setupTransfer } from './transfer.js';
import { byId, errorBox } from './ui.js';

app.config = await loadConfig();
setupConnect();
setupAccounts();
setupToken();
setupHistory();
setupCompare();
setupInspector();
setupForgery();
setupTransfer();
setupBeacon();
// Start loading the verifier (a separate .wasm asset) while the user reads the form.
init().catch((e: unknown) => byId('connect-out').replaceChildren(errorBox(e, 'Loading the WebAssembly verifier')));
document.body.dataset['ready'] = 'true';
