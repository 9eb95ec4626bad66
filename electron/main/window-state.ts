import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonFileAtomic } from '../core/base/config';

/** Where and how big the window was, kept in `<configDir>/window-state.json`. */
export interface WindowState {
  readonly x?: number;
  readonly y?: number;
  readonly width: number;
  readonly height: number;
  readonly maximized: boolean;
}

export interface Rectangle {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export const defaultWindowState: WindowState = { width: 1280, height: 820, maximized: false };

const minimum = { width: 640, height: 400 };

const stateSchema = z.object({
  x: z.int().optional(),
  y: z.int().optional(),
  width: z.int().min(minimum.width).max(20_000),
  height: z.int().min(minimum.height).max(20_000),
  maximized: z.boolean(),
});

export function windowStatePath(configDir: string): string {
  return join(configDir, 'window-state.json');
}

/**
 * The saved state, if it is valid and still on a screen (a monitor may have been
 * unplugged since): a window whose title bar is off every display is moved back to the
 * default position, keeping its size where it fits.
 */
export async function loadWindowState(
  configDir: string,
  displays: readonly Rectangle[],
): Promise<WindowState> {
  let raw: unknown;
  try {
    raw = await readJsonFile(windowStatePath(configDir));
  } catch {
    return defaultWindowState;
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) return defaultWindowState;
  const state = parsed.data;
  if (state.x === undefined || state.y === undefined) return state;
  const titleBar = { x: state.x, y: state.y, width: state.width, height: 40 };
  if (displays.some((display) => intersects(titleBar, display))) return state;
  const { x: _x, y: _y, ...size } = state;
  return size;
}

export function saveWindowState(configDir: string, state: WindowState): Promise<void> {
  return writeJsonFileAtomic(windowStatePath(configDir), state);
}

function intersects(a: Rectangle, b: Rectangle): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** What the window reports, reduced to what we keep. */
export function captureWindowState(window: {
  getNormalBounds(): Rectangle;
  isMaximized(): boolean;
}): WindowState {
  const bounds = window.getNormalBounds();
  return {
    x: bounds.x,
    y: bounds.y,
    width: Math.max(bounds.width, minimum.width),
    height: Math.max(bounds.height, minimum.height),
    maximized: window.isMaximized(),
  };
}

export const minimumWindowSize = minimum;
