import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { encodeStoragePath } from './archive-path.ts';

/** Bytes sent of an upload so far. */
export interface UploadProgress {
  readonly loaded: number;
  readonly total: number;
}

interface ErrorShape {
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

/** The ApiError of a finished request that did not succeed (decisions.md §3 body when there is one). */
function errorOf(xhr: XMLHttpRequest): ApiError {
  let body: ErrorShape = {};
  try {
    body = JSON.parse(xhr.responseText) as ErrorShape;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new ApiError(
    xhr.status,
    body.error?.code ?? `http_${xhr.status}`,
    body.error?.message ?? `${xhr.status} ${xhr.statusText}`.trim(),
    body.error?.details ?? {},
  );
}

/**
 * PUT /api/noise/archives/<path> with the file as the raw body (application/zip), reporting upload
 * progress. XMLHttpRequest, because fetch reports no upload progress.
 */
export function uploadArchive(
  storagePath: string,
  file: Blob,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<{ storage_path: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', `/api/noise/archives/${encodeStoragePath(storagePath)}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', 'application/zip');
    xhr.upload.onprogress = (event) => {
      onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress({ loaded: file.size, total: file.size });
        try {
          resolve(JSON.parse(xhr.responseText) as { storage_path: string });
        } catch {
          resolve({ storage_path: storagePath });
        }
      } else reject(errorOf(xhr));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The service did not answer the upload'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/**
 * An archive upload as a mutation, with its progress and a way to cancel it; the archive list is
 * fetched again when it succeeds, and an upload still going is cancelled when the form unmounts.
 */
export function useArchiveUpload() {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const controller = useRef<AbortController | null>(null);
  const mutation = useMutation({
    mutationFn: ({ storagePath, file }: { storagePath: string; file: Blob }) => {
      controller.current = new AbortController();
      setProgress({ loaded: 0, total: file.size });
      return uploadArchive(storagePath, file, setProgress, controller.current.signal);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['noise', 'archives'] }),
    onSettled: () => {
      controller.current = null;
    },
  });
  const cancel = useCallback(() => controller.current?.abort(), []);
  // Leaving the page stops an upload still going: nobody is left to see its progress or outcome.
  useEffect(() => () => controller.current?.abort(), []);
  return { mutation, progress, cancel };
}
