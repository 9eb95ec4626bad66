export interface Image {
  readonly id: string;
  readonly repoTags: readonly string[];
  readonly repoDigests: readonly string[];
  readonly sizeBytes: number;
  /** The image's configured user: a uid or a name, when it sets one. */
  readonly user?: string;
  readonly pinned: boolean;
}

export interface ImageFilesystemUsage {
  readonly mountpoint: string;
  readonly usedBytes?: number;
  readonly inodesUsed?: number;
  readonly timestamp: number;
}
