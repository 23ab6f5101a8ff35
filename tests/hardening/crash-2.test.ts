// Crash safety, part 2 of 2: the engine sets of even index in part 1, odd in part 2
// (crash.ts), so that two vitest workers run them side by side.
import { crashSuite } from './crash.js';

crashSuite(2, 2);
