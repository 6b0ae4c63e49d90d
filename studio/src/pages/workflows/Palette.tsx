// Every block type, in the registry's order: drag one onto the canvas, or
// press its button (Enter, Space, a click) to add it right of the others.
import type { BlockType } from './graph.ts';
import { DRAG_TYPE } from './Canvas.tsx';

export function Palette({ types, onAdd }: { types: BlockType[]; onAdd: (type: string) => void }) {
  return (
    <section className="palette" aria-labelledby="palette-title">
      <h2 id="palette-title">Blocks</h2>
      <ul className="plain-list">
        {types.map((t) => (
          <li key={t.type}>
            <button type="button" draggable title={t.description} aria-label={`Add ${t.label}`}
              onDragStart={(e) => { e.dataTransfer.setData(DRAG_TYPE, t.type); e.dataTransfer.effectAllowed = 'copy'; }}
              onClick={() => onAdd(t.type)}>
              {t.label}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
