import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderNoise, stubService } from './test-helpers.tsx';

/** An XMLHttpRequest the test drives: it records the request and answers when told. */
class FakeXhr {
  static sent: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  withCredentials = false;
  status = 0;
  statusText = '';
  responseText = '';
  upload: {
    onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;
  } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  send(body: unknown) {
    this.body = body;
    FakeXhr.sent.push(this);
  }
  aborted = false;
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

let stored = [
  {
    storage_path: 'noise/proxy.zip',
    size: 2048,
    modified_at: '2030-01-01T10:00:00Z',
    used_by: ['proxy noise'],
  },
];

beforeEach(() => {
  FakeXhr.sent = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const zip = () =>
  new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4])], 'dns noise.zip', {
    type: 'application/zip',
  });

describe('archive library', () => {
  it('lists archives with size, date and the jobs using them', async () => {
    stubService((r) => (r.path === '/api/noise/archives' ? { status: 200, body: stored } : undefined));
    renderNoise('/noise/archives');
    expect(await screen.findByText('noise/proxy.zip')).toBeInTheDocument();
    expect(screen.getByText('2.0 KiB')).toBeInTheDocument();
    expect(screen.getByText('2030-01-01 10:00:00 UTC')).toBeInTheDocument();
    expect(screen.getByText('proxy noise')).toBeInTheDocument();
  });

  it('uploads with a progress bar and lists the new archive', async () => {
    const user = userEvent.setup();
    stubService((r) => (r.path === '/api/noise/archives' ? { status: 200, body: stored } : undefined));
    renderNoise('/noise/archives');
    await user.upload(screen.getByLabelText('Archive (.zip)'), zip());
    const path = screen.getByLabelText('Storage path');
    expect(path).toHaveValue('dns noise.zip');
    await user.clear(path);
    await user.type(path, 'noise/dns noise.zip');
    await user.click(screen.getByRole('button', { name: 'Upload' }));

    const xhr = FakeXhr.sent[0];
    expect(xhr?.method).toBe('PUT');
    expect(xhr?.url).toBe('/api/noise/archives/noise/dns%20noise.zip');
    expect(xhr?.headers['content-type']).toBe('application/zip');
    expect(xhr?.body).toBeInstanceOf(File);

    act(() => xhr?.progress(4, 8));
    const bar = screen.getByRole('progressbar', { name: 'Upload progress' });
    expect(bar).toHaveAttribute('value', '50');
    expect(screen.getByText(/50% \(4 B of 8 B\)/)).toBeInTheDocument();

    stored = [
      ...stored,
      { storage_path: 'noise/dns noise.zip', size: 8, modified_at: '2030-01-01T11:00:00Z', used_by: [] },
    ];
    act(() => xhr?.respond(201, { storage_path: 'noise/dns noise.zip' }));
    expect(await screen.findByText('Stored as noise/dns noise.zip.')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(await screen.findByRole('cell', { name: 'noise/dns noise.zip' })).toBeInTheDocument();
  });

  it('shows a refused storage path next to its field', async () => {
    const user = userEvent.setup();
    stubService((r) => (r.path === '/api/noise/archives' ? { status: 200, body: [] } : undefined));
    renderNoise('/noise/archives');
    await user.upload(screen.getByLabelText('Archive (.zip)'), zip());
    const path = screen.getByLabelText('Storage path');
    await user.clear(path);
    await user.type(path, 'a/../b.zip');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    act(() =>
      FakeXhr.sent[0]?.respond(400, {
        ok: false,
        error: {
          code: 'invalid_input',
          message: 'Invalid storage path "a/../b.zip": storage_path must not contain a .. segment',
          details: { fields: { storage_path: 'must not contain a .. segment' } },
        },
      }),
    );
    await waitFor(() => expect(path).toHaveAccessibleDescription(/must not contain a \.\. segment/));
    expect(path).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows why a delete is refused while jobs use the archive', async () => {
    const user = userEvent.setup();
    const seen = stubService((r) => {
      if (r.path === '/api/noise/archives') return { status: 200, body: stored.slice(0, 1) };
      if (r.method === 'DELETE') {
        return {
          status: 409,
          body: {
            ok: false,
            error: {
              code: 'conflict',
              message: 'Archive "noise/proxy.zip" is used by noise jobs: "proxy noise"',
              details: { storage_path: 'noise/proxy.zip', jobs: [{ id: 'j1', name: 'proxy noise' }] },
            },
          },
        };
      }
      return undefined;
    });
    renderNoise('/noise/archives');
    await user.click(await screen.findByRole('button', { name: 'Delete noise/proxy.zip' }));
    await user.click(screen.getByRole('button', { name: 'Confirm delete of noise/proxy.zip' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('is used by noise jobs: "proxy noise"');
    expect(seen.find((r) => r.method === 'DELETE')?.path).toBe('/api/noise/archives/noise/proxy.zip');
    // The confirm step stays beside the message, its button focused again.
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Confirm delete of noise/proxy.zip' })).toHaveFocus(),
    );
    await user.click(screen.getByRole('button', { name: 'Keep' }));
    expect(screen.getByRole('button', { name: 'Delete noise/proxy.zip' })).toHaveFocus();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('focuses the confirm button when the delete step opens and the trigger when it is kept', async () => {
    const user = userEvent.setup();
    const seen = stubService((r) =>
      r.path === '/api/noise/archives' ? { status: 200, body: stored.slice(0, 1) } : undefined,
    );
    renderNoise('/noise/archives');
    await user.click(await screen.findByRole('button', { name: 'Delete noise/proxy.zip' }));
    expect(screen.getByRole('button', { name: 'Confirm delete of noise/proxy.zip' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Keep' }));
    expect(screen.getByRole('button', { name: 'Delete noise/proxy.zip' })).toHaveFocus();
    expect(seen.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('cancels an upload still going when the page is left', async () => {
    const user = userEvent.setup();
    stubService((r) => (r.path === '/api/noise/archives' ? { status: 200, body: [] } : undefined));
    const { unmount } = renderNoise('/noise/archives');
    await user.upload(screen.getByLabelText('Archive (.zip)'), zip());
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    const xhr = FakeXhr.sent[0];
    expect(xhr?.aborted).toBe(false);
    unmount();
    expect(xhr?.aborted).toBe(true);
  });
});
