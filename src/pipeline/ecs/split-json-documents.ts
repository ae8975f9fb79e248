import { AppError } from '../../errors.ts';
import { quoteName } from '../archive/entry-path.ts';
import type { LineBatch } from '../archive/split-lines.ts';

/**
 * Splits the text of a `.json` entry into its documents without parsing the whole entry: one
 * object, an array of objects, or objects one after another (NDJSON saved as `.json`). Memory is
 * bounded by the largest document, not by the entry, so an array as large as the entry cap needs
 * no more than that. Whitespace between tokens is dropped, so each document is one NDJSON line.
 * The documents themselves are validated later (scanEcsJson); here only the outer structure is.
 */
export class JsonDocumentSplitter {
  readonly #entry: string;
  readonly #maxLength: number;
  #line = 1;
  /** Top-level shape: undecided, an array, or one or more bare objects. */
  #shape: 'none' | 'array' | 'objects' = 'none';
  /** Outside a document inside the top-level array: what may come next. */
  #arrayState: 'first' | 'value' | 'after' | 'closed' = 'first';
  #depth = 0;
  #inString = false;
  #escape = false;
  #pieces: string[] = [];
  #pieceLength = 0;
  #docLine = 0;
  #element = 0;

  constructor(entry: string, maxLength: number) {
    this.#entry = entry;
    this.#maxLength = maxLength;
  }

  /** Feeds decoded text; returns the documents it completed (texts) and their starting lines. */
  push(text: string): LineBatch {
    const out: LineBatch = { texts: [], numbers: [] };
    const n = text.length;
    // Start of the document text not yet kept; a document open from the last chunk goes on at 0.
    let segment = this.#depth > 0 ? 0 : -1;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) this.#line++;
      if (this.#depth > 0) {
        if (this.#inString) {
          if (this.#escape) this.#escape = false;
          else if (c === 0x5c) this.#escape = true;
          else if (c === 0x22) this.#inString = false;
          continue;
        }
        if (c === 0x22) this.#inString = true;
        else if (c === 0x7b || c === 0x5b) this.#depth++;
        else if (c === 0x7d || c === 0x5d) {
          this.#depth--;
          if (this.#depth === 0) {
            this.#keep(text, segment, i + 1);
            segment = -1;
            out.texts.push(this.#takeDocument());
            out.numbers.push(this.#docLine);
            if (this.#shape === 'array') this.#arrayState = 'after';
          }
        } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          this.#keep(text, segment, i);
          segment = i + 1;
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (c === 0x7b && this.#mayStartDocument()) {
        this.#depth = 1;
        this.#docLine = this.#line;
        this.#element++;
        segment = i;
        continue;
      }
      if (c === 0x5b && this.#shape === 'none') {
        this.#shape = 'array';
        continue;
      }
      if (this.#shape === 'array') {
        if (c === 0x2c && this.#arrayState === 'after') {
          this.#arrayState = 'value';
          continue;
        }
        if (c === 0x5d && (this.#arrayState === 'after' || this.#arrayState === 'first')) {
          this.#arrayState = 'closed';
          continue;
        }
        if (this.#arrayState === 'first' || this.#arrayState === 'value') {
          throw this.#error(`element ${this.#element + 1} of the array is not a JSON object`);
        }
      }
      throw this.#error(
        this.#shape === 'none' ? 'does not start with a JSON object or array' : `has unexpected "${text[i]}"`,
      );
    }
    if (this.#depth > 0) this.#keep(text, segment, n);
    return out;
  }

  /** Ends the input: a document or array left open is an error. */
  end(): void {
    if (this.#depth > 0) throw this.#error('ends inside a JSON document', this.#docLine);
    if (this.#shape === 'array' && this.#arrayState !== 'closed') throw this.#error('ends inside the array');
  }

  #mayStartDocument(): boolean {
    if (this.#shape === 'none') {
      this.#shape = 'objects';
      return true;
    }
    if (this.#shape === 'objects') return true;
    return this.#arrayState === 'first' || this.#arrayState === 'value';
  }

  #keep(text: string, from: number, to: number): void {
    if (to <= from) return;
    this.#pieceLength += to - from;
    if (this.#pieceLength > this.#maxLength) {
      throw new AppError(
        'payload_too_large',
        `the document at line ${this.#docLine} of archive entry ${quoteName(this.#entry)} is longer than ${this.#maxLength} characters`,
        { details: { entry: this.#entry, line: this.#docLine, limit: this.#maxLength } },
      );
    }
    this.#pieces.push(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  #takeDocument(): string {
    const doc = this.#pieces.length === 1 ? this.#pieces[0]! : this.#pieces.join('');
    this.#pieces = [];
    this.#pieceLength = 0;
    return doc;
  }

  #error(why: string, line = this.#line): AppError {
    return new AppError(
      'archive_invalid',
      `line ${line} of archive entry ${quoteName(this.#entry)}: the JSON ${why}`,
      {
        details: { entry: this.#entry, line },
      },
    );
  }
}
