/** Labels and annotations, as the runtime reports them. */
export type StringMap = Readonly<Record<string, string>>;

/** Milliseconds since the Unix epoch. CRI reports nanoseconds; milliseconds are what UIs use. */
export type EpochMillis = number;

/**
 * The runtime's verbose `info` map: each value is a JSON document (containerd puts the
 * container spec, pid, snapshotter… there). Values that aren't valid JSON are kept as text.
 */
export type VerboseInfo = Readonly<Record<string, unknown>>;
