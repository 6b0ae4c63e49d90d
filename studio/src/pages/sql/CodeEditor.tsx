// The SQL editor's text: CodeMirror 6 with PostgreSQL's highlighting and
// completion of the database's schemas, tables, columns and functions;
// Ctrl+Enter (⌘+Enter) runs. A failed run's position is marked in the text
// (underlined, scrolled into view) until the text changes.
import { autocompletion, completeFromList, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, highlightActiveLine, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

export type CodeEditorHandle = {
  /** The selection's text and where it starts, or the whole text. */
  runText: () => { text: string; from: number };
  setText: (text: string) => void;
  markError: (from: number, to: number) => void;
  focus: () => void;
};

const setError = StateEffect.define<{ from: number; to: number } | null>();
const errorMark = Decoration.mark({ class: 'cm-error-mark', attributes: { 'aria-invalid': 'true' } });
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    if (tr.docChanged) return Decoration.none;
    for (const e of tr.effects) if (e.is(setError)) return e.value ? Decoration.set([errorMark.range(e.value.from, e.value.to)]) : Decoration.none;
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

type Props = { initial: string; schema: SQLNamespace; functions: string[]; onRun: () => void; onChange: (text: string) => void };

/** PostgreSQL's highlighting, and completion of this schema's names and functions. */
function languageFor(schema: SQLNamespace, functions: string[]): Extension {
  return [
    sql({ dialect: PostgreSQL, schema, defaultSchema: 'public', upperCaseKeywords: false }),
    EditorState.languageData.of(() => [{ autocomplete: completeFromList(functions.map((f) => ({ label: f, type: 'function' }))) }]),
  ];
}

export const CodeEditor = forwardRef<CodeEditorHandle, Props>(function CodeEditor(p, handle) {
  const host = useRef<HTMLDivElement>(null);
  const language = useRef(new Compartment());
  const view = useRef<EditorView>(null);
  const run = useRef(p.onRun);
  run.current = p.onRun;
  const change = useRef(p.onChange);
  change.current = p.onChange;

  useEffect(() => {
    const nonce = document.querySelector('meta[property="csp-nonce"]')?.getAttribute('content');
    const extensions: Extension[] = [
      ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
      lineNumbers(), history(), bracketMatching(), highlightActiveLine(), syntaxHighlighting(classHighlighter), // coloured by styles.css, per theme
      language.current.of(languageFor(p.schema, p.functions)),
      autocompletion(), errorField,
      keymap.of([{ key: 'Mod-Enter', run: () => (run.current(), true) }, indentWithTab, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...searchKeymap]),
      EditorView.updateListener.of((u) => u.docChanged && change.current(u.state.doc.toString())),
      // tabindex: the text is in the tab order anyway (contenteditable); said
      // outright, checkers see the scrolling area has a focusable inside.
      EditorView.contentAttributes.of({ 'aria-label': 'SQL', 'aria-multiline': 'true', tabindex: '0' }),
    ];
    view.current = new EditorView({ parent: host.current!, state: EditorState.create({ doc: p.initial, extensions }) });
    return () => view.current?.destroy();
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  // A schema read again (after DDL ran) changes the completion in place: the
  // text, its undo history and the selection stay.
  const schemaKey = JSON.stringify(p.schema) + p.functions.join();
  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageFor(p.schema, p.functions)) });
  }, [schemaKey]); // eslint-disable-line react-hooks/exhaustive-deps

  useImperativeHandle(handle, () => ({
    runText: () => {
      const v = view.current!;
      const sel = v.state.selection.main;
      return sel.empty ? { text: v.state.doc.toString(), from: 0 } : { text: v.state.sliceDoc(sel.from, sel.to), from: sel.from };
    },
    setText: (text) => {
      const v = view.current!;
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
    },
    markError: (from, to) => {
      const v = view.current!;
      const end = Math.min(Math.max(to, from + 1), v.state.doc.length);
      v.dispatch({ effects: [setError.of({ from: Math.min(from, end - 1), to: end }), EditorView.scrollIntoView(from, { y: 'center' })] });
    },
    focus: () => view.current?.focus(),
  }), []);

  return <div className="code-editor" ref={host} />;
});
