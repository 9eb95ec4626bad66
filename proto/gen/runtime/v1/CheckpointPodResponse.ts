// Original file: proto/runtime/v1/api.proto


export interface CheckpointPodResponse {
}

export interface CheckpointPodResponse__Output {
}
