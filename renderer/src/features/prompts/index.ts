export { PromptDialog, Prompts } from './PromptDialog';
export { usePendingPrompts } from './use-pending-prompts';
