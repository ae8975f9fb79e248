import { describe, expect, it } from 'vitest';
import { KINDS } from './kinds.fixture.ts';
import {
  allFields,
  buildFormModel,
  type FormValues,
  fieldsFromSchema,
  initialValues,
  labelOf,
  toRequestBody,
} from './settings-form.ts';
import type { SiemKind } from './types.ts';

function kind(name: string): SiemKind {
  const found = KINDS.find((k) => k.name === name);
  if (!found) throw new Error(`no kind ${name}`);
  return found;
}

const paths = (name: string, mode: 'create' | 'edit' = 'create') =>
  allFields(buildFormModel(kind(name), mode)).map((f) => f.path);

describe('labelOf', () => {
  it('turns setting names into labels', () => {
    expect(labelOf('management_url')).toBe('Management URL');
    expect(labelOf('ca_pem')).toBe('CA PEM');
    expect(labelOf('siem_q')).toBe('SIEM Q');
    expect(labelOf('event_collector_id')).toBe('Event collector ID');
    expect(labelOf('api_key')).toBe('API key');
  });
});

describe('fieldsFromSchema', () => {
  it('reads types, required, defaults, descriptions, enums, multiline and secrets', () => {
    const model = fieldsFromSchema({
      type: 'object',
      required: ['host', 'port'],
      properties: {
        host: { type: 'string', description: 'receiver host' },
        port: { type: 'integer', minimum: 1 },
        ratio: { type: 'number' },
        tls: { type: 'boolean', default: false },
        mode: { enum: ['a', 'b'], default: 'a' },
        union: { anyOf: [{ const: 'x' }, { const: 'y' }] },
        ca_pem: { type: 'string', 'x-multiline': true },
        token: { type: 'string', writeOnly: true },
        marked: { type: 'string' },
        list: { type: 'array', items: { type: 'string' } },
      },
    });
    const fields = Object.fromEntries(model.sections[0]!.fields.map((f) => [f.path, f]));
    expect(fields.host).toMatchObject({ type: 'string', required: true, description: 'receiver host' });
    expect(fields.port).toMatchObject({ type: 'integer', required: true });
    expect(fields.ratio).toMatchObject({ type: 'number', required: false });
    expect(fields.tls).toMatchObject({ type: 'boolean', defaultValue: false });
    expect(fields.mode).toMatchObject({ type: 'enum', options: ['a', 'b'], defaultValue: 'a' });
    expect(fields.union).toMatchObject({ type: 'enum', options: ['x', 'y'] });
    expect(fields.ca_pem).toMatchObject({ type: 'multiline' });
    expect(fields.token).toMatchObject({ secret: true });
    expect(fields.marked).toMatchObject({ secret: false });
    expect(model.unsupported).toEqual(['list']);
  });

  it('takes secrets named in secret_fields too', () => {
    const model = fieldsFromSchema({ type: 'object', properties: { key: { type: 'string' } } }, ['key']);
    expect(model.sections[0]!.fields[0]).toMatchObject({ path: 'key', secret: true });
  });

  it('puts a nested object in its own section with group paths, after the top level', () => {
    const model = fieldsFromSchema(kind('syslog_tcp').settings, kind('syslog_tcp').secret_fields);
    expect(model.sections.map((s) => s.path)).toEqual(['', 'siem_q']);
    const group = model.sections[1]!;
    expect(group.label).toBe('SIEM Q');
    expect(group.description).toBe('SIEM Q console API settings');
    expect(group.fields.map((f) => f.path)).toContain('siem_q.console_url');
    expect(group.fields.find((f) => f.path === 'siem_q.console_url')?.required).toBe(true);
    expect(group.fields.find((f) => f.path === 'siem_q.token')?.secret).toBe(true);
    expect(group.fields.find((f) => f.path === 'siem_q.log_source_type')?.defaultValue).toBe(
      'Universal LEEF',
    );
  });
});

describe('buildFormModel', () => {
  it('holds only the chosen kind’s settings after the common fields', () => {
    expect(paths('vendorB_bulk')).toEqual([
      'name',
      'payload_format',
      'index',
      'enabled',
      'url',
      'api_key',
      'username',
      'password',
      'tls_verify',
      'ca_pem',
    ]);
    expect(paths('vendorA_hec')).toContain('management_token');
    expect(paths('vendorA_hec')).not.toContain('api_key');
  });

  it('leaves name and enabled out of an edit', () => {
    expect(paths('vendorB_bulk', 'edit').slice(0, 3)).toEqual(['payload_format', 'index', 'url']);
  });

  it('requires an index for a kind that wipes, and offers its payload formats with the first as default', () => {
    const hec = allFields(buildFormModel(kind('vendorA_hec'), 'create'));
    expect(hec.find((f) => f.path === 'index')?.required).toBe(true);
    expect(hec.find((f) => f.path === 'payload_format')).toMatchObject({
      options: ['leef', 'ecs'],
      defaultValue: 'leef',
    });
    const syslog = allFields(buildFormModel(kind('syslog_tcp'), 'create'));
    expect(syslog.find((f) => f.path === 'index')?.required).toBe(false);
  });
});

describe('initialValues', () => {
  it('starts a new form empty, with checkboxes at their defaults', () => {
    const model = buildFormModel(kind('syslog_tcp'), 'create');
    const values = initialValues(model);
    expect(values.host).toBe('');
    expect(values.port).toBe('');
    expect(values.tls).toBe(false);
    expect(values.tls_verify).toBe(true);
    expect(values.enabled).toBe(true);
    expect(values['siem_q.tls_verify']).toBe(true);
  });

  it('fills an edit from the stored destination, never a secret', () => {
    const model = buildFormModel(kind('syslog_tcp'), 'edit');
    const values = initialValues(model, {
      host: 'q.lab',
      port: 514,
      tls: true,
      siem_q: { console_url: 'https://q.lab', token: 'leaked?', event_collector_id: null },
    });
    expect(values).toMatchObject({
      host: 'q.lab',
      port: '514',
      tls: true,
      'siem_q.console_url': 'https://q.lab',
    });
    expect(values['siem_q.token']).toBe('');
    expect(values['siem_q.event_collector_id']).toBe('');
  });
});

describe('toRequestBody (create)', () => {
  const model = buildFormModel(kind('syslog_tcp'), 'create');
  const start = (): FormValues => initialValues(model);

  it('leaves empty optional fields and default checkboxes out and parses numbers', () => {
    const values = { ...start(), name: 'q1', host: 'q.lab', port: ' 6514 ', facility: '', tls: true };
    expect(toRequestBody(model, values)).toEqual({
      body: { name: 'q1', host: 'q.lab', port: 6514, tls: true },
      errors: {},
    });
  });

  it('sends a checkbox turned off from a true default', () => {
    const values = { ...start(), tls_verify: false, enabled: false };
    expect(toRequestBody(model, values).body).toEqual({ enabled: false, tls_verify: false });
  });

  it('names numbers that are not numbers', () => {
    const values = { ...start(), port: 'abc', facility: '1.5' };
    const { errors, body } = toRequestBody(model, values);
    expect(errors).toEqual({ port: 'must be a whole number', facility: 'must be a whole number' });
    expect(body).not.toHaveProperty('port');
  });

  it('sends a group only when one of its fields is filled, with its own keys', () => {
    expect(toRequestBody(model, start()).body).not.toHaveProperty('siem_q');
    const values = { ...start(), 'siem_q.console_url': 'https://q.lab', 'siem_q.token': 's3cret' };
    expect(toRequestBody(model, values).body).toEqual({
      siem_q: { console_url: 'https://q.lab', token: 's3cret' },
    });
  });

  it('sends secrets only when typed', () => {
    const bulk = buildFormModel(kind('vendorB_bulk'), 'create');
    const values = { ...initialValues(bulk), url: 'https://b:9200', api_key: '' };
    expect(toRequestBody(bulk, values).body).toEqual({ url: 'https://b:9200' });
    expect(toRequestBody(bulk, { ...values, api_key: 'k' }).body).toEqual({
      url: 'https://b:9200',
      api_key: 'k',
    });
  });

  it('sends enums only when chosen', () => {
    const values = { ...start(), framing: 'octet_counting', payload_format: '' };
    expect(toRequestBody(model, values).body).toEqual({ framing: 'octet_counting' });
  });
});

describe('toRequestBody (edit)', () => {
  const model = buildFormModel(kind('syslog_tcp'), 'edit');
  const stored = {
    payload_format: 'leef',
    index: 'lab',
    host: 'q.lab',
    port: 514,
    tls: false,
    facility: 16,
    siem_q: { console_url: 'https://q.lab', log_source_type: 'Universal LEEF', tls_verify: true },
  };
  const initial = initialValues(model, stored);
  const base = { initial, secretsSet: ['siem_q.token'] };

  it('sends nothing when nothing changed, and no secret', () => {
    expect(toRequestBody(model, { ...initial }, base)).toEqual({ body: {}, errors: {} });
  });

  it('sends only what changed; an emptied field as null', () => {
    const values = { ...initial, port: '601', facility: '', index: '', tls: true };
    expect(toRequestBody(model, values, base).body).toEqual({
      port: 601,
      facility: null,
      index: null,
      tls: true,
    });
  });

  it('sends a typed secret, a cleared one as null, and keeps an untouched one', () => {
    expect(toRequestBody(model, { ...initial, 'siem_q.token': 'new' }, base).body).toEqual({
      siem_q: { token: 'new' },
    });
    expect(toRequestBody(model, { ...initial }, { ...base, cleared: ['siem_q.token'] }).body).toEqual({
      siem_q: { token: null },
    });
  });

  it('removes a stored group whose fields were all emptied', () => {
    const values = { ...initial, 'siem_q.console_url': '', 'siem_q.log_source_type': '' };
    expect(toRequestBody(model, values, base).body).toEqual({ siem_q: null });
  });

  it('sends a group changed in part as that part', () => {
    const values = { ...initial, 'siem_q.event_collector_id': '7' };
    expect(toRequestBody(model, values, base).body).toEqual({ siem_q: { event_collector_id: 7 } });
  });

  it('leaves an unset group out when it stays empty', () => {
    const bare = initialValues(model, { host: 'q.lab', port: 514, siem_q: null });
    expect(toRequestBody(model, { ...bare }, { initial: bare, secretsSet: [] }).body).toEqual({});
  });
});
