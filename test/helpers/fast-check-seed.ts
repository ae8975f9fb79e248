// Property tests explore new random inputs on every local run; CI replays one fixed seed so a
// clean clone's verdict does not depend on the draw. FC_SEED replays any seed a failure printed.
import fc from 'fast-check';

const fromEnv = process.env.FC_SEED;
if (fromEnv !== undefined && fromEnv !== '') {
  fc.configureGlobal({ seed: Number(fromEnv) });
} else if (process.env.CI === 'true' || process.env.CI === '1') {
  fc.configureGlobal({ seed: 20_261_122 });
}
