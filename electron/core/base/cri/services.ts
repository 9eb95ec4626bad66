import { fromJSON } from '@grpc/proto-loader';
import {
  criDescriptor,
  criLoadOptions,
  type ImageServiceDefinition,
  type RuntimeServiceDefinition,
} from '../../../../proto/gen';

export interface CriServiceDefinitions {
  readonly runtime: RuntimeServiceDefinition;
  readonly image: ImageServiceDefinition;
}

let loaded: CriServiceDefinitions | undefined;

/**
 * The CRI service definitions, built once from the descriptor compiled into the app (no
 * .proto files are read at run time). They are immutable tables of method paths and
 * (de)serializers, so sharing them across clients is safe.
 */
export function criServices(): CriServiceDefinitions {
  if (loaded === undefined) {
    const definition = fromJSON(criDescriptor, criLoadOptions);
    loaded = {
      runtime: definition['runtime.v1.RuntimeService'] as unknown as RuntimeServiceDefinition,
      image: definition['runtime.v1.ImageService'] as unknown as ImageServiceDefinition,
    };
  }
  return loaded;
}
