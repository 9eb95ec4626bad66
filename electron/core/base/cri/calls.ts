/**
 * The plumbing under CriClient: one channel for the RuntimeService and one for the
 * ImageService (the same one when both live on one socket), typed calls by method name,
 * and the capability tracker fed by every answer and every UNIMPLEMENTED.
 */
import { AppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import { CapabilityTracker } from './capabilities';
import type {
  AnyMethod,
  CallOptions,
  CriChannel,
  RequestOf,
  ResponseOf,
  StreamObserver,
} from './channel';
import { criServices, type CriServiceDefinitions } from './services';

type RuntimeMethods = CriServiceDefinitions['runtime'];
type ImageMethods = CriServiceDefinitions['image'];

export class CriCalls implements Disposable {
  readonly capabilities = new CapabilityTracker();
  private readonly services: CriServiceDefinitions = criServices();

  constructor(
    readonly runtimeChannel: CriChannel,
    readonly imageChannel: CriChannel,
  ) {}

  runtime<K extends keyof RuntimeMethods & string>(
    method: K,
    request: RequestOf<RuntimeMethods[K]>,
    options?: CallOptions,
  ): Promise<ResponseOf<RuntimeMethods[K]>> {
    return this.call(this.runtimeChannel, this.services.runtime[method], method, request, options);
  }

  images<K extends keyof ImageMethods & string>(
    method: K,
    request: RequestOf<ImageMethods[K]>,
    options?: CallOptions,
  ): Promise<ResponseOf<ImageMethods[K]>> {
    return this.call(this.imageChannel, this.services.image[method], method, request, options);
  }

  /** A RuntimeService server stream with no deadline; dispose the result to cancel it. */
  runtimeStream<K extends keyof RuntimeMethods & string>(
    method: K,
    request: RequestOf<RuntimeMethods[K]>,
    observer: StreamObserver<ResponseOf<RuntimeMethods[K]>>,
  ): Disposable {
    return this.runtimeChannel.serverStream(
      this.services.runtime[method],
      method,
      request,
      observer,
    );
  }

  /** A call's deadline when the runtime itself waits `seconds` (a grace period, a timeout). */
  deadlineAfter(seconds: number, options: CallOptions): number {
    if (options.timeoutMs !== undefined) return options.timeoutMs;
    return this.runtimeChannel.defaultTimeoutMs + seconds * 1000;
  }

  reconnect(): void {
    this.runtimeChannel.reconnect();
    if (this.imageChannel !== this.runtimeChannel) this.imageChannel.reconnect();
  }

  dispose(): void {
    this.runtimeChannel.dispose();
    this.imageChannel.dispose();
  }

  private async call<M extends AnyMethod>(
    channel: CriChannel,
    method: M,
    name: string,
    request: RequestOf<M>,
    options?: CallOptions,
  ): Promise<ResponseOf<M>> {
    try {
      const response = await channel.unary(method, name, request, options);
      this.capabilities.observe(name, 'answered');
      return response;
    } catch (error) {
      if (error instanceof AppError && error.code === 'unimplemented') {
        this.capabilities.observe(name, 'unimplemented');
      }
      throw error;
    }
  }
}
