/**
 * Small filesystems for the tests of a full disk (test/api/database-faults.test.ts,
 * test/cli/kassa.test.ts): a tmpfs of a given size, and a filler that takes its last block.
 * Mounting needs root: CI runs as root, where these tests fail rather than skip.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const asRoot = process.getuid?.() === 0;
/** Without root the tmpfs tests cannot run: skipped by hand, failed in CI (which runs as root and must run them). */
export const needsRoot = !asRoot && !process.env.CI ? 'mounting a tmpfs needs root' : false;

/** A tmpfs of `size` at a new directory; needs root. */
export function mountTmpfs(size: string) {
  assert(asRoot, 'this test mounts a tmpfs: run it as root (CI does)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kassa-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return {
    dir,
    remove: () => {
      execFileSync('umount', [dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem of `file` to the last block; returns how much it wrote. */
export function fillUp(file: string): number {
  const descriptor = fs.openSync(file, 'w');
  let written = 0;
  try {
    for (const chunk of [Buffer.alloc(1024 * 1024), Buffer.alloc(4096)]) {
      for (;;) {
        try {
          written += fs.writeSync(descriptor, chunk);
        } catch (error) {
          if ((error as { code?: string }).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    fs.closeSync(descriptor);
  }
  return written;
}
