import {
  defaultKeymap,
  history,
  historyKeymap,
  insertNewlineAndIndent,
} from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import type { SpecProblem } from '../../../../shared/contract';
import { problemRange } from './run-spec';

/** Colours from the app's tokens, so the editor follows the light or dark theme. */
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--json-key)' },
  { tag: [tags.string, tags.special(tags.string), tags.content], color: 'var(--json-string)' },
  { tag: tags.number, color: 'var(--json-number)' },
  { tag: [tags.bool, tags.null, tags.atom, tags.keyword], color: 'var(--json-literal)' },
  { tag: [tags.comment, tags.lineComment], color: 'var(--text-faint)', fontStyle: 'italic' },
  { tag: [tags.punctuation, tags.separator, tags.bracket], color: 'var(--text-muted)' },
]);

const theme = EditorView.theme({
  '&': { backgroundColor: 'transparent', color: 'var(--text)' },
  '.cm-content': { padding: '6px 0' },
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--danger)',
    textUnderlineOffset: '3px',
  },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': {
    backgroundColor: 'var(--bg-selected-strong) !important',
  },
});

export interface SpecEditorProps {
  value: string;
  onChange: (value: string) => void;
  problems: readonly SpecProblem[];
  /** Ctrl/Cmd+Enter. */
  onRun: () => void;
  /** A position to move the cursor to (a clicked problem); changes identity per request. */
  reveal?: { readonly line: number; readonly column?: number };
  label: string;
}

/**
 * CodeMirror 6 with YAML highlighting and the validator's problems as inline
 * diagnostics. Tab is left to the browser (focus moves on): in a dialog, trapping Tab in
 * the editor would strand keyboard users.
 */
export default function SpecEditor({
  value,
  onChange,
  problems,
  onRun,
  reveal,
  label,
}: SpecEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const callbacks = useRef({ onChange, onRun });
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    if (host.current === null) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          yaml(),
          syntaxHighlighting(highlight),
          lintGutter(),
          theme,
          EditorState.tabSize.of(2),
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                callbacks.current.onRun();
                return true;
              },
            },
            { key: 'Enter', run: insertNewlineAndIndent },
            ...historyKeymap,
            ...defaultKeymap,
          ]),
          // tabindex: axe counts a scroller focusable only through a focusable child.
          EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    editor.focus();
    return () => {
      editor.destroy();
      view.current = undefined;
    };
    // The editor owns the text after creation; `value` only seeds it.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor === undefined) return;
    const text = editor.state.doc.toString();
    const diagnostics: Diagnostic[] = problems.map((problem) => ({
      ...problemRange(text, problem),
      severity: 'error',
      message: problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`,
    }));
    editor.dispatch(setDiagnostics(editor.state, diagnostics));
  }, [problems]);

  useEffect(() => {
    const editor = view.current;
    if (editor === undefined || reveal === undefined) return;
    const text = editor.state.doc.toString();
    const { from } = problemRange(text, { path: '', message: '', ...reveal });
    editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    editor.focus();
  }, [reveal]);

  return <div ref={host} className="spec-editor" />;
}
