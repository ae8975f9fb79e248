import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import { archivePathSerializer, defaultStoragePath, formatSize } from './archive-path.ts';
import { formatUtc } from './cron-preview.ts';
import { useArchiveUpload } from './useArchiveUpload.ts';
import { useConfirmStep } from './useConfirmStep.ts';

/** The archive list query, shared with the job form's archive choices. */
export function useArchives() {
  return useQuery({ queryKey: ['noise', 'archives'], queryFn: () => call(api.GET('/api/noise/archives')) });
}

function UploadForm() {
  const id = useId();
  const { mutation, progress, cancel } = useArchiveUpload();
  const [file, setFile] = useState<File | null>(null);
  const [storagePath, setStoragePath] = useState('');
  const [localProblem, setLocalProblem] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const outcome = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (mutation.isSuccess || mutation.isError) outcome.current?.focus();
  }, [mutation.isSuccess, mutation.isError]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setLocalProblem('Choose a .zip file first.');
      fileInput.current?.focus();
      return;
    }
    setLocalProblem(null);
    const path = storagePath.trim() || defaultStoragePath(file.name);
    setStoragePath(path);
    mutation.mutate({ storagePath: path, file });
  };

  const percent = progress && progress.total > 0 ? Math.round((progress.loaded / progress.total) * 100) : 0;
  const error = mutation.error;
  const pathError = error instanceof ApiError ? error.fields.storage_path : undefined;
  return (
    <form onSubmit={onSubmit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>Upload an archive</h3>
      <div className="noise-fields">
        <div>
          <label htmlFor={`${id}-file`}>Archive (.zip)</label>
          <input
            ref={fileInput}
            id={`${id}-file`}
            type="file"
            accept=".zip,application/zip"
            aria-describedby={localProblem ? `${id}-file-error` : undefined}
            onChange={(event) => {
              const chosen = event.target.files?.[0] ?? null;
              setFile(chosen);
              if (chosen && storagePath.trim() === '') setStoragePath(defaultStoragePath(chosen.name));
            }}
          />
          {localProblem ? (
            <span className="field-error" id={`${id}-file-error`} role="alert">
              {localProblem}
            </span>
          ) : null}
        </div>
        <div>
          <label htmlFor={`${id}-path`}>Storage path</label>
          <input
            id={`${id}-path`}
            type="text"
            value={storagePath}
            placeholder="noise/proxy.zip"
            aria-invalid={pathError ? true : undefined}
            aria-describedby={`${id}-path-hint${pathError ? ` ${id}-path-error` : ''}`}
            onChange={(event) => setStoragePath(event.target.value)}
          />
          <span className="muted noise-hint" id={`${id}-path-hint`}>
            Relative, folders with “/”, no “..”; an archive at the same path is replaced.
          </span>
          <FieldError error={error} field="storage_path" id={`${id}-path-error`} />
        </div>
      </div>
      <div className="toolbar noise-actions">
        <button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? 'Uploading…' : 'Upload'}
        </button>
        {mutation.isPending ? (
          <button type="button" className="secondary" onClick={cancel}>
            Cancel upload
          </button>
        ) : null}
      </div>
      {mutation.isPending && progress ? (
        <div className="noise-progress">
          <label htmlFor={`${id}-progress`}>Upload progress</label>
          <progress id={`${id}-progress`} max={100} value={percent}>
            {percent}%
          </progress>
          <span aria-live="polite">
            {' '}
            {percent}% ({formatSize(progress.loaded)} of {formatSize(progress.total)})
          </span>
        </div>
      ) : null}
      <div ref={outcome} tabIndex={-1} className="noise-outcome">
        {mutation.isSuccess ? <p role="status">Stored as {mutation.data.storage_path}.</p> : null}
        {error && !pathError ? <ErrorNotice error={error} /> : null}
      </div>
    </form>
  );
}

function ArchiveRowActions({ storagePath, onDeleted }: { storagePath: string; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      call(
        api.DELETE('/api/noise/archives/{*}', {
          params: { path: { '*': storagePath } },
          pathSerializer: archivePathSerializer,
        }),
      ),
    // The row goes away with the refetched list; a failure keeps the confirm step open beside its message.
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['noise', 'archives'] });
      onDeleted();
    },
  });
  const step = useConfirmStep(remove.error);
  return (
    <>
      {step.confirming ? (
        <div className="toolbar">
          <button
            ref={step.confirmRef}
            type="button"
            className="danger"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
          >
            Confirm delete of {storagePath}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={remove.isPending}
            onClick={() => {
              step.close();
              remove.reset();
            }}
          >
            Keep
          </button>
        </div>
      ) : (
        <button
          ref={step.triggerRef}
          type="button"
          className="secondary"
          aria-label={`Delete ${storagePath}`}
          onClick={step.open}
        >
          Delete
        </button>
      )}
      <ErrorNotice error={remove.error} />
    </>
  );
}

/** The noise-archives bucket: list, upload with progress, delete. */
export function ArchivesView() {
  const archives = useArchives();
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="noise-archives-title">
      <h2 id="noise-archives-title" ref={heading} tabIndex={-1}>
        Archive library
      </h2>
      <UploadForm />
      <h3>Stored archives</h3>
      {archives.isPending ? <p className="loading">Loading archives…</p> : null}
      <ErrorNotice error={archives.error} />
      {archives.data && archives.data.length === 0 ? (
        <p className="muted">No archive is stored yet.</p>
      ) : null}
      {archives.data && archives.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Storage path</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">Used by jobs</th>
              <th scope="col">
                <span className="noise-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {archives.data.map((archive) => (
              <tr key={archive.storage_path}>
                <td>
                  <code>{archive.storage_path}</code>
                </td>
                <td>{formatSize(archive.size)}</td>
                <td>{formatUtc(new Date(archive.modified_at))}</td>
                <td>
                  {archive.used_by.length > 0 ? (
                    archive.used_by.join(', ')
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td>
                  <ArchiveRowActions
                    storagePath={archive.storage_path}
                    onDeleted={() => heading.current?.focus()}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
