/**
 * Sockets where CRI runtimes listen by default, in the order we try them: the runtimes
 * crictl knows first, then the Kubernetes distributions that move them.
 */
export const wellKnownEndpoints: readonly {
  readonly endpoint: string;
  readonly runtime: string;
}[] = [
  { endpoint: 'unix:///run/containerd/containerd.sock', runtime: 'containerd' },
  { endpoint: 'unix:///run/crio/crio.sock', runtime: 'CRI-O' },
  { endpoint: 'unix:///run/cri-dockerd.sock', runtime: 'cri-dockerd' },
  { endpoint: 'unix:///var/run/cri-dockerd.sock', runtime: 'cri-dockerd' },
  { endpoint: 'unix:///run/k3s/containerd/containerd.sock', runtime: 'k3s / RKE2 containerd' },
  {
    endpoint: 'unix:///var/snap/microk8s/common/run/containerd.sock',
    runtime: 'MicroK8s containerd',
  },
  { endpoint: 'unix:///run/k0s/containerd.sock', runtime: 'k0s containerd' },
  { endpoint: 'unix:///var/run/containerd/containerd.sock', runtime: 'containerd' },
  { endpoint: 'unix:///var/run/crio/crio.sock', runtime: 'CRI-O' },
];

/** crictl reads this file unless CRI_CONFIG_FILE (or its --config flag) names another. */
export const defaultCrictlConfigPath = '/etc/crictl.yaml';
