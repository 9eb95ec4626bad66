/**
 * Whether a terminal should draw with WebGL. xterm's WebGL renderer is the fastest on a
 * real GPU; on a software rasteriser (SwiftShader, llvmpipe: VMs, remote desktops,
 * headless browsers) every frame is drawn by the CPU and the DOM renderer does better.
 */
import type { RendererPreference } from './settings';

export interface WebglSupport {
  readonly available: boolean;
  readonly software: boolean;
  readonly renderer: string;
}

let probed: WebglSupport | undefined;

export function webglSupport(): WebglSupport {
  probed ??= probe();
  return probed;
}

function probe(): WebglSupport {
  if (typeof document === 'undefined') return { available: false, software: false, renderer: '' };
  const canvas = document.createElement('canvas');
  let context: WebGL2RenderingContext | null = null;
  try {
    context = canvas.getContext('webgl2');
  } catch {
    context = null;
  }
  if (context === null) return { available: false, software: false, renderer: '' };
  const info = context.getExtension('WEBGL_debug_renderer_info');
  const renderer = info === null ? '' : String(context.getParameter(info.UNMASKED_RENDERER_WEBGL));
  // Give the context back now: browsers allow only a few at a time.
  context.getExtension('WEBGL_lose_context')?.loseContext();
  return {
    available: true,
    software: /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer),
    renderer,
  };
}

export function shouldUseWebgl(preference: RendererPreference, support = webglSupport()): boolean {
  if (preference === 'dom' || !support.available) return false;
  return preference === 'webgl' || !support.software;
}
