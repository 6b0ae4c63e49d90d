// A code block's JavaScript in CodeMirror (highlighting, brackets, undo);
// the text reaches the block when the editor loses focus, so a change is
// one undo step of the canvas, not one per key.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { useEffect, useRef } from 'react';

export function CodeField({ value, label, onCommit }: { value: string; label: string; onCommit: (text: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(null);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  useEffect(() => {
    const nonce = document.querySelector('meta[property="csp-nonce"]')?.getAttribute('content');
    view.current = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
          lineNumbers(), history(), bracketMatching(), syntaxHighlighting(classHighlighter), javascript(),
          keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
          EditorView.domEventHandlers({ blur: (_e, v) => void commit.current(v.state.doc.toString()) }),
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true', tabindex: '0' }),
        ],
      }),
    });
    return () => view.current?.destroy();
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  // The block's code changed elsewhere (undo, a proposal): the editor shows it.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value && !v.hasFocus) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  return <div className="code-editor code-field" ref={host} />;
}
