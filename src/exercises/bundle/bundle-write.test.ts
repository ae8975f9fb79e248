import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AppError } from '../../errors.ts';
import { BUNDLE_SCHEMA_VERSION, bundleJsonSchema, type ExerciseBundle } from './bundle-schema.ts';
import { BUNDLE_HEADER, bundleFilePath, writeBundle } from './bundle-write.ts';

const minimal: ExerciseBundle = {
  schema_version: 1,
  title: 'Minimal',
  archives: [{ format: 'leef', file: 'archives/exercise/leef/a.log', filename: 'a.log' }],
};

function entryNames(zip: Buffer): string[] {
  // Central directory order is the order entries were written in.
  return Object.keys(unzipSync(new Uint8Array(zip)));
}

describe('writeBundle', () => {
  it('writes exercise.yaml first with the header comment and every default filled in', () => {
    const zip = writeBundle(minimal, new Map([['archives/exercise/leef/a.log', Buffer.from('x\n')]]));
    expect(entryNames(zip)).toEqual(['exercise.yaml', 'archives/exercise/leef/a.log']);
    const text = Buffer.from(unzipSync(new Uint8Array(zip))['exercise.yaml']!).toString('utf8');
    expect(text.startsWith(BUNDLE_HEADER)).toBe(true);
    expect(BUNDLE_HEADER).toBe('# Socdrill exercise bundle, schema_version 1\n');
    expect(Object.keys(parse(text))).toEqual([
      'schema_version',
      'title',
      'description',
      'destinations',
      'convert_to_leef',
      'deadlock_override',
      'tags',
      'steps',
      'artifacts',
      'sections',
      'archives',
    ]);
  });

  it('gives the same bytes for the same bundle', () => {
    const files = new Map([['archives/exercise/leef/a.log', Buffer.from('x\n')]]);
    expect(writeBundle(minimal, files).equals(writeBundle(minimal, files))).toBe(true);
  });

  it('stores already compressed archives and deflates the others', () => {
    const text = Buffer.from('LEEF:1.0|a|b|c|d|src=1.2.3.4\n'.repeat(200));
    const bundle: ExerciseBundle = {
      ...minimal,
      archives: [
        { format: 'leef', file: 'archives/exercise/leef/a.log', filename: 'a.log' },
        { format: 'leef', file: 'archives/exercise/leef/b.zip', filename: 'b.zip' },
      ],
    };
    const zip = writeBundle(
      bundle,
      new Map([
        ['archives/exercise/leef/a.log', text],
        ['archives/exercise/leef/b.zip', text],
      ]),
    );
    const methods = new Map<string, number>();
    for (
      let at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])), cd = zip.readUInt32LE(at + 16), i = 0;
      i < 3;
      i++
    ) {
      const nameLength = zip.readUInt16LE(cd + 28);
      methods.set(zip.toString('utf8', cd + 46, cd + 46 + nameLength), zip.readUInt16LE(cd + 10));
      cd += 46 + nameLength + zip.readUInt16LE(cd + 30) + zip.readUInt16LE(cd + 32);
    }
    expect(methods.get('archives/exercise/leef/a.log')).toBe(8);
    expect(methods.get('archives/exercise/leef/b.zip')).toBe(0);
  });

  it('refuses a referenced archive that is not given, and a given one that is not referenced', () => {
    const missing = catchError(() => writeBundle(minimal, new Map()));
    expect(missing.details).toEqual({ reason: 'missing_archive', files: ['archives/exercise/leef/a.log'] });
    const extra = catchError(() =>
      writeBundle(
        minimal,
        new Map([
          ['archives/exercise/leef/a.log', Buffer.from('x')],
          ['archives/other.log', Buffer.from('y')],
        ]),
      ),
    );
    expect(extra.details).toEqual({ reason: 'unreferenced_archive', files: ['archives/other.log'] });
  });

  it("refuses an invalid bundle with the reader's checks", () => {
    const error = catchError(() => writeBundle({ ...minimal, title: '' }, new Map()));
    expect(error.details).toEqual({
      reason: 'schema',
      problems: [{ path: '/title', message: 'must not be empty' }],
    });
  });
});

describe('bundleFilePath', () => {
  it('builds archives/<section or exercise>/<format>/<sanitised name>', () => {
    expect(bundleFilePath('phishing', 'leef', 'mail gateway (1).log')).toBe(
      'archives/phishing/leef/mail_gateway_1_.log',
    );
    expect(bundleFilePath(null, 'ecs', 'C:\\Users\\me\\events.ndjson')).toBe(
      'archives/exercise/ecs/events.ndjson',
    );
    expect(bundleFilePath('s', 'leef', '../../etc/passwd')).toBe('archives/s/leef/passwd');
    expect(bundleFilePath('s', 'leef', '.hidden')).toBe('archives/s/leef/hidden');
    expect(bundleFilePath('s', 'leef', '...')).toBe('archives/s/leef/archive');
    expect(bundleFilePath('s', 'leef', 'Café.log')).toBe('archives/s/leef/Cafe_.log');
  });

  it('numbers a name already taken, before its extension', () => {
    const taken = new Set(['archives/s/leef/a.tar.gz', 'archives/s/leef/a-2.tar.gz']);
    expect(bundleFilePath('s', 'leef', 'a.tar.gz', taken)).toBe('archives/s/leef/a-3.tar.gz');
  });

  it('always gives a path the schema accepts', () => {
    const pattern = new RegExp(
      String(
        (
          bundleJsonSchema() as {
            definitions?: unknown;
            properties: Record<string, { items: { properties: { file: { pattern: string } } } }>;
          }
        ).properties.archives!.items.properties.file.pattern,
      ),
    );
    for (const name of ['a'.repeat(400), '-rf', '\u0000x', 'a b', '日本語.log', '']) {
      expect(bundleFilePath('s', 'ecs', name)).toMatch(pattern);
    }
  });
});

describe('bundleJsonSchema', () => {
  it('is a JSON Schema document with an $id and a title', () => {
    const schema = bundleJsonSchema();
    expect(schema.$id).toBe(`urn:socdrill:exercise-bundle:${BUNDLE_SCHEMA_VERSION}`);
    expect(schema.title).toMatch(/exercise bundle/);
    expect(schema.additionalProperties).toBe(false);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});

function catchError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
