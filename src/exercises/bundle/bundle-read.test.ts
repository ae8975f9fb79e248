import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXAMPLE_EXERCISES, writeExampleExercises } from '../../../scripts/generate-example-exercises.ts';
import { AppError } from '../../errors.ts';
import { parseLeef } from '../../pipeline/leef/parse-leef.ts';
import { type BundleLimits, readBundle, readBundleDirectory } from './bundle-read.ts';
import type { ExerciseBundle, ResolvedExerciseBundle } from './bundle-schema.ts';
import { BUNDLE_HEADER, writeBundle } from './bundle-write.ts';

const LIMITS: BundleLimits = { maxBytes: 10_000_000, maxEntries: 100, maxUncompressedBytes: 50_000_000 };
const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples/exercises');

const full: ResolvedExerciseBundle = {
  schema_version: 1,
  title: 'Round trip',
  description: 'Line one\nline two: with a colon\n',
  destinations: ['splunk-lab'],
  convert_to_leef: true,
  deadlock_override: true,
  tags: ['T1566.001', '10'],
  steps: [{ title: 'Look', body: '# Heading\n\n- a\n- b' }],
  artifacts: [
    {
      ref: 'ip-1',
      name: 'C2',
      kind: 'ip',
      values: ['2001:db8::1', '203.0.113.7'],
      match: 'normalized',
      points: 25,
      section: 'one',
      hint: 'look at the firewall',
      hint_penalty: 5,
    },
    {
      ref: 'user',
      name: 'User',
      kind: 'user',
      values: ['(?i)svc_[a-z]+'],
      match: 'regex',
      points: 10,
      section: null,
      hint: null,
      hint_penalty: null,
    },
  ],
  sections: [
    {
      ref: 'one',
      name: 'First',
      position: 1,
      release: null,
      archives: [
        { format: 'leef', file: 'archives/one/leef/a.log', filename: 'a.log', converted_from: null },
      ],
    },
    {
      ref: 'two',
      name: 'Second',
      position: 2,
      release: {
        condition: 'delay_and_artifacts',
        delay_minutes: 10,
        artifacts: ['ip-1', 'user'],
        gate_mode: 'any',
      },
      archives: [
        {
          format: 'ecs',
          file: 'archives/two/ecs/b.ndjson',
          filename: 'b (1).ndjson',
          converted_from: 'leef',
        },
        { format: 'leef', file: 'archives/two/leef/c.zip', filename: 'c.zip', converted_from: null },
      ],
    },
  ],
  archives: [],
};
const fullArchives = new Map([
  ['archives/one/leef/a.log', Buffer.from('LEEF:1.0|V|P|1|e|src=1.2.3.4\n')],
  ['archives/two/ecs/b.ndjson', Buffer.from('{"@timestamp":"2026-01-01T00:00:00Z"}\n')],
  ['archives/two/leef/c.zip', Buffer.from([0x50, 0x4b, 3, 4, 0, 1, 2, 3, 255])],
]);

/** A zip of exactly these entries (the writer refuses what these tests need). */
function zipOf(entries: Record<string, string | Buffer>): Buffer {
  const input: Record<string, Uint8Array> = {};
  for (const [name, data] of Object.entries(entries))
    input[name] = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.from(zipSync(input));
}

function yamlOf(bundle: unknown): string {
  return BUNDLE_HEADER + stringify(bundle);
}

const minimalYaml = {
  schema_version: 1,
  title: 'T',
  archives: [{ format: 'leef', file: 'archives/a.log', filename: 'a.log' }],
};

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

async function asyncRefusal(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

/** The zip with the uncompressed size of its first central directory entry replaced. */
function withDeclaredSize(zip: Buffer, size: number): Buffer {
  const copy = Buffer.from(zip);
  const eocd = copy.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  copy.writeUInt32LE(size, copy.readUInt32LE(eocd + 16) + 24);
  return copy;
}

describe('readBundle', () => {
  it('reads back what writeBundle wrote: the same bundle and archive bytes', () => {
    const result = readBundle(writeBundle(full, fullArchives), LIMITS);
    expect(result.bundle).toEqual(full);
    expect(result.archives).toEqual(fullArchives);
    expect(result.warnings).toEqual([]);
  });

  it('fills in the defaults an author left out', () => {
    const { bundle } = readBundle(
      zipOf({ 'exercise.yaml': yamlOf(minimalYaml), 'archives/a.log': 'x' }),
      LIMITS,
    );
    expect(bundle).toEqual({
      schema_version: 1,
      title: 'T',
      description: '',
      destinations: [],
      convert_to_leef: false,
      deadlock_override: false,
      tags: [],
      steps: [],
      artifacts: [],
      sections: [],
      archives: [{ format: 'leef', file: 'archives/a.log', filename: 'a.log', converted_from: null }],
    });
  });

  it('reads a bundle zipped as one folder', () => {
    const zip = zipOf({
      'ex/exercise.yaml': yamlOf(minimalYaml),
      'ex/archives/a.log': 'x',
      '__MACOSX/ex/._a.log': 'm',
    });
    const result = readBundle(zip, LIMITS);
    expect([...result.archives.keys()]).toEqual(['archives/a.log']);
    expect(result.warnings).toEqual(['"__MACOSX/ex/._a.log" is not named in exercise.yaml and was ignored']);
  });

  it('lists files no one references as warnings and does not return them', () => {
    const zip = zipOf({ 'exercise.yaml': yamlOf(minimalYaml), 'archives/a.log': 'x', 'notes.txt': 'n' });
    const result = readBundle(zip, LIMITS);
    expect([...result.archives.keys()]).toEqual(['archives/a.log']);
    expect(result.warnings).toEqual(['"notes.txt" is not named in exercise.yaml and was ignored']);
  });

  it('refuses what is not a zip', () => {
    const error = refusal(() => readBundle(Buffer.from('schema_version: 1\n'), LIMITS));
    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual({ reason: 'not_a_zip' });
  });

  it('refuses a zip without exercise.yaml', () => {
    const error = refusal(() => readBundle(zipOf({ 'archives/a.log': 'x', 'b/exercise.yaml': 'x' }), LIMITS));
    expect(error.details).toEqual({ reason: 'missing_exercise_yaml' });
    expect(error.message).toBe('the bundle has no exercise.yaml at its root');
  });

  it('refuses YAML syntax errors with line and column', () => {
    const error = refusal(() =>
      readBundle(zipOf({ 'exercise.yaml': 'schema_version: 1\ntitle: [unclosed\n' }), LIMITS),
    );
    expect(error.details).toMatchObject({ reason: 'yaml_syntax', line: 3, column: 1 });
    expect(error.message).toMatch(/^exercise\.yaml is not valid YAML at line 3, column 1: /);
  });

  it('refuses a duplicate key as a YAML error', () => {
    const error = refusal(() => readBundle(zipOf({ 'exercise.yaml': 'title: a\ntitle: b\n' }), LIMITS));
    expect(error.details).toMatchObject({ reason: 'yaml_syntax', line: 2, column: 1 });
  });

  it('refuses exercise.yaml that is not UTF-8', () => {
    const error = refusal(() =>
      readBundle(zipOf({ 'exercise.yaml': Buffer.from([0x74, 0xff, 0xfe]) }), LIMITS),
    );
    expect(error.details).toEqual({ reason: 'yaml_encoding' });
  });

  it('refuses a newer schema_version naming the versions it reads', () => {
    const error = refusal(() =>
      readBundle(zipOf({ 'exercise.yaml': yamlOf({ schema_version: 2, title: 'T', future: true }) }), LIMITS),
    );
    expect(error.details).toEqual({
      reason: 'unsupported_schema_version',
      schema_version: 2,
      supported: [1],
    });
    expect(error.message).toBe('exercise.yaml has schema_version 2; this build reads schema_version 1');
  });

  it('reports every schema problem with its JSON path, unknown fields included', () => {
    const yaml = yamlOf({
      title: 'x'.repeat(201),
      colour: 'red',
      tags: ['ok', 'y'.repeat(65)],
      steps: [{ body: 'no title' }],
      artifacts: [
        {
          ref: 'A B',
          name: 'n',
          kind: 'email',
          values: [],
          match: 'exact',
          points: 1.5,
          section: 7,
          extra: 1,
        },
      ],
      sections: [
        {
          ref: 's',
          name: 'S',
          position: 0,
          release: { condition: 'later', delay_minutes: -1, gate_mode: 'some' },
          archives: [{ format: 'cef', file: 'archives/../x.log', filename: '' }],
        },
      ],
    });
    const error = refusal(() => readBundle(zipOf({ 'exercise.yaml': yaml }), LIMITS));
    expect(error.code).toBe('invalid_input');
    expect(error.details?.reason).toBe('schema');
    expect(error.details?.problems).toEqual([
      { path: '/schema_version', message: 'is required' },
      { path: '/colour', message: 'is not a known field' },
      { path: '/title', message: 'must be at most 200 characters' },
      { path: '/tags/1', message: 'must be at most 64 characters' },
      { path: '/steps/0/title', message: 'is required' },
      { path: '/artifacts/0/extra', message: 'is not a known field' },
      {
        path: '/artifacts/0/ref',
        message: 'must be a ref: 1-64 lowercase letters, digits, "_" or "-", starting with a letter or digit',
      },
      {
        path: '/artifacts/0/kind',
        message: 'must be one of ip, domain, url, hash, user, host, process, text',
      },
      { path: '/artifacts/0/values', message: 'must have at least 1 items' },
      { path: '/artifacts/0/points', message: 'must be an integer' },
      { path: '/artifacts/0/section', message: 'must be null or a string' },
      { path: '/sections/0/position', message: 'must be at least 1' },
      {
        path: '/sections/0/release/condition',
        message: 'must be one of delay_only, artifacts_only, delay_and_artifacts, delay_or_artifacts',
      },
      { path: '/sections/0/release/delay_minutes', message: 'must be at least 0' },
      { path: '/sections/0/release/gate_mode', message: 'must be one of all, any' },
      { path: '/sections/0/archives/0/format', message: 'must be one of leef, ecs' },
      {
        path: '/sections/0/archives/0/file',
        message:
          'must be a path under archives/ made of letters, digits, ".", "_" and "-" (no segment starting with "." or "-")',
      },
      { path: '/sections/0/archives/0/filename', message: 'must not be empty' },
    ]);
    expect(error.message).toMatch(
      /^exercise\.yaml does not match the bundle schema: \/schema_version is required; /,
    );
  });

  it('refuses a document that is not a mapping', () => {
    const error = refusal(() => readBundle(zipOf({ 'exercise.yaml': '- a\n- b\n' }), LIMITS));
    expect(error.details).toEqual({
      reason: 'schema',
      problems: [{ path: '', message: 'must be an object' }],
    });
  });

  it('refuses duplicate refs, unknown refs and duplicate positions, all at once', () => {
    const bundle: ExerciseBundle = {
      schema_version: 1,
      title: 'T',
      artifacts: [
        { ref: 'a', name: 'A', kind: 'ip', values: ['1.1.1.1'], section: 'nowhere' },
        { ref: 'a', name: 'A again', kind: 'ip', values: ['1.1.1.2'] },
        { ref: 'r', name: 'R', kind: 'text', values: ['(a'], match: 'regex' },
      ],
      sections: [
        { ref: 's', name: 'S', position: 1 },
        {
          ref: 's',
          name: 'S again',
          position: 1,
          release: { condition: 'artifacts_only', artifacts: ['a', 'ghost'] },
        },
      ],
      archives: [{ format: 'leef', file: 'archives/a.log', filename: 'a.log' }],
    };
    const error = refusal(() =>
      readBundle(zipOf({ 'exercise.yaml': yamlOf(bundle), 'archives/a.log': 'x' }), LIMITS),
    );
    expect(error.details).toEqual({
      reason: 'references',
      problems: [
        { path: '/sections/1/ref', message: 'duplicates the ref "s" of /sections/0' },
        { path: '/sections/1/position', message: 'duplicates position 1 of /sections/0' },
        { path: '/artifacts/0/section', message: 'refers to unknown section "nowhere"' },
        { path: '/artifacts/1/ref', message: 'duplicates the ref "a" of /artifacts/0' },
        {
          path: '/artifacts/2/values/0',
          message: expect.stringMatching(/^The pattern is not a valid RE2 regular expression/),
        },
        { path: '/sections/1/release/artifacts/1', message: 'refers to unknown artifact "ghost"' },
        {
          path: '/archives',
          message: 'holds the archives of a sectionless exercise; with sections, archives belong to sections',
        },
      ],
    });
  });

  it('refuses an archive the yaml names but the zip lacks, naming it', () => {
    const error = refusal(() => readBundle(zipOf({ 'exercise.yaml': yamlOf(minimalYaml) }), LIMITS));
    expect(error.details).toEqual({ reason: 'missing_archive', files: ['archives/a.log'] });
    expect(error.message).toBe('archives named in exercise.yaml are missing from the bundle: archives/a.log');
  });

  it.each([
    ['../evil.log', 'points outside the bundle (..)'],
    ['archives/../../evil.log', 'points outside the bundle (..)'],
    ['/etc/passwd', 'has an absolute path'],
    ['C:/evil.log', 'has a drive letter'],
    ['archives\\evil.log', 'has a backslash in its name'],
    ['archives/evil\u0000.log', 'has a control character in its name'],
  ])('refuses the entry %j', (name, why) => {
    const error = refusal(() =>
      readBundle(zipOf({ 'exercise.yaml': yamlOf(minimalYaml), 'archives/a.log': 'x', [name]: 'x' }), LIMITS),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual({ reason: 'unsafe_entry', entry: name });
    expect(error.message).toBe(`bundle entry ${JSON.stringify(name)} ${why}`);
  });

  it('refuses a zip over maxBytes', () => {
    const zip = zipOf({ 'exercise.yaml': yamlOf(minimalYaml), 'archives/a.log': 'x' });
    const error = refusal(() => readBundle(zip, { ...LIMITS, maxBytes: zip.length - 1 }));
    expect(error.code).toBe('payload_too_large');
    expect(error.status).toBe(413);
    expect(error.details).toEqual({ limit: 'maxBytes', max: zip.length - 1 });
  });

  it('refuses a zip over maxEntries', () => {
    const zip = zipOf({ 'exercise.yaml': yamlOf(minimalYaml), 'archives/a.log': 'x', 'b.txt': 'b' });
    const error = refusal(() => readBundle(zip, { ...LIMITS, maxEntries: 2 }));
    expect(error.code).toBe('payload_too_large');
    expect(error.details).toEqual({ limit: 'maxEntries', max: 2 });
  });

  it('counts inflated bytes as they come out, whatever the header declares', () => {
    const yaml = yamlOf(minimalYaml);
    const bomb = Buffer.alloc(5_000_000, 0x41);
    // The first entry's declared size is rewritten to 10 bytes.
    const zip = withDeclaredSize(zipOf({ 'archives/a.log': bomb, 'exercise.yaml': yaml }), 10);
    expect(zip.length).toBeLessThan(20_000);
    const error = refusal(() => readBundle(zip, { ...LIMITS, maxUncompressedBytes: 1_000_000 }));
    expect(error.code).toBe('payload_too_large');
    expect(error.details).toEqual({ limit: 'maxUncompressedBytes', max: 1_000_000 });
  });

  it('refuses an entry whose size or CRC does not match its header', () => {
    const zip = withDeclaredSize(
      zipOf({ 'archives/a.log': 'hello', 'exercise.yaml': yamlOf(minimalYaml) }),
      4,
    );
    const error = refusal(() => readBundle(zip, LIMITS));
    expect(error.details).toEqual({ reason: 'corrupt_entry', entry: 'archives/a.log' });
  });
});

describe('readBundleDirectory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundle-dir-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function folder(name: string, files: Record<string, string>): Promise<string> {
    const root = path.join(dir, name);
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    }
    return root;
  }

  it('reads an unpacked bundle like a zip', async () => {
    const root = await folder('plain', {
      'exercise.yaml': yamlOf(minimalYaml),
      'archives/a.log': 'x',
      'README.md': 'r',
    });
    const result = await readBundleDirectory(root, LIMITS);
    expect(result.archives).toEqual(new Map([['archives/a.log', Buffer.from('x')]]));
    expect(result.warnings).toEqual(['"README.md" is not named in exercise.yaml and was ignored']);
  });

  it('follows a symbolic link inside the folder and refuses one leaving it', async () => {
    const root = await folder('links', { 'exercise.yaml': yamlOf(minimalYaml), 'data/a.log': 'inside' });
    await mkdir(path.join(root, 'archives'));
    await symlink(path.join(root, 'data/a.log'), path.join(root, 'archives/a.log'));
    expect((await readBundleDirectory(root, LIMITS)).archives.get('archives/a.log')).toEqual(
      Buffer.from('inside'),
    );

    const outside = await folder('outside', { 'secret.txt': 's' });
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    const error = await asyncRefusal(() => readBundleDirectory(root, LIMITS));
    expect(error.details).toEqual({ reason: 'unsafe_entry', entry: 'leak.txt' });
    expect(error.message).toBe('bundle entry "leak.txt" is a symbolic link leaving the folder');
  });

  it('applies maxEntries and maxUncompressedBytes', async () => {
    const root = await folder('big', {
      'exercise.yaml': yamlOf(minimalYaml),
      'archives/a.log': 'x'.repeat(5000),
    });
    const entries = await asyncRefusal(() => readBundleDirectory(root, { ...LIMITS, maxEntries: 1 }));
    expect(entries.details).toEqual({ limit: 'maxEntries', max: 1 });
    const bytes = await asyncRefusal(() =>
      readBundleDirectory(root, { ...LIMITS, maxUncompressedBytes: 4000 }),
    );
    expect(bytes.details).toEqual({ limit: 'maxUncompressedBytes', max: 4000 });
  });
});

describe('the example exercises', () => {
  it.each(EXAMPLE_EXERCISES)('%s validates and has every archive it names', async (name) => {
    const { bundle, archives, warnings } = await readBundleDirectory(path.join(EXAMPLES, name), LIMITS);
    expect(warnings).toEqual([]);
    expect(bundle.destinations).toEqual([]);
    const named = [...bundle.sections.flatMap((s) => s.archives), ...bundle.archives];
    expect(named.length).toBeGreaterThan(0);
    for (const archive of named) expect(archives.get(archive.file)?.length).toBeGreaterThan(0);
    const total = [...archives.values()].reduce((sum, b) => sum + b.length, 0);
    expect(total).toBeLessThan(1_500_000);
  });

  it('phishing: every LEEF line has a syslog header, a LEEF header and a device time', async () => {
    const { archives } = await readBundleDirectory(
      path.join(EXAMPLES, 'phishing-to-lateral-movement'),
      LIMITS,
    );
    for (const [file, bytes] of archives) {
      const lines = bytes.toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.length).toBeGreaterThan(200);
      for (const line of lines) {
        expect(line, file).toMatch(/^<\d{1,3}>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ LEEF:[12]\.0\|/);
        const event = parseLeef(line);
        expect(
          event?.attributes.some(([k]) => k === 'devTime'),
          line,
        ).toBe(true);
      }
    }
  });

  it('ssh-brute-force: every ECS line is JSON with an @timestamp', async () => {
    const { archives } = await readBundleDirectory(path.join(EXAMPLES, 'ssh-brute-force'), LIMITS);
    for (const bytes of archives.values()) {
      const lines = bytes.toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      for (const line of lines) {
        const doc = JSON.parse(line) as Record<string, unknown>;
        expect(Number.isNaN(Date.parse(String(doc['@timestamp'])))).toBe(false);
      }
    }
  });

  it('the generator writes the committed files byte for byte', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'examples-'));
    try {
      await writeExampleExercises(out);
      for (const name of EXAMPLE_EXERCISES) {
        const generated = await listFiles(path.join(out, name));
        expect(await listFiles(path.join(EXAMPLES, name))).toEqual(generated);
        for (const file of generated) {
          const [a, b] = await Promise.all([
            readFile(path.join(out, name, file)),
            readFile(path.join(EXAMPLES, name, file)),
          ]);
          expect(a.equals(b), `${name}/${file}`).toBe(true);
        }
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}
