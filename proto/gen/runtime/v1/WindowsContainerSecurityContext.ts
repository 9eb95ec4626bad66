// Original file: proto/runtime/v1/api.proto


export interface WindowsContainerSecurityContext {
  'runAsUsername'?: (string);
  'credentialSpec'?: (string);
  'hostProcess'?: (boolean);
}

export interface WindowsContainerSecurityContext__Output {
  'runAsUsername': (string);
  'credentialSpec': (string);
  'hostProcess': (boolean);
}
