export {
  PromptBroker,
  defaultPromptTimeoutMs,
  type PromptBrokerOptions,
  type PromptEndReason,
  type PromptOutcome,
  type PromptSubject,
} from './broker';
