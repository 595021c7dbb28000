// Pure mapping for autarch/languageFeature: the editor's own definitions
// and references (VS Code's providers) as the discussion agent's
// go_to_definition and find_references read them.
import type { EditorLocation } from './lspext.gen';

/** The VS Code command that answers each feature Autarch asks for. */
export function featureCommand(feature: unknown): string | undefined {
  if (feature === 'definition') return 'vscode.executeDefinitionProvider';
  if (feature === 'references') return 'vscode.executeReferenceProvider';
  return undefined;
}

interface UriLike {
  scheme: string;
  fsPath: string;
}
interface RangeLike {
  start: { line: number; character: number };
}
/** A provider's answer: a Location (uri, range) or a LocationLink (targetUri, targetSelectionRange). */
interface PlaceLike {
  uri?: UriLike;
  range?: RangeLike;
  targetUri?: UriLike;
  targetRange?: RangeLike;
  targetSelectionRange?: RangeLike;
}

/** The file places of a provider's answer (other schemes left out), 0-based. */
export function toEditorLocations(raw: unknown): EditorLocation[] {
  if (!Array.isArray(raw)) return [];
  const out: EditorLocation[] = [];
  for (const x of raw as PlaceLike[]) {
    const uri = x?.targetUri ?? x?.uri;
    const range = x?.targetSelectionRange ?? x?.targetRange ?? x?.range;
    if (!uri || uri.scheme !== 'file' || !range) continue;
    out.push({ path: uri.fsPath, line: range.start.line, character: range.start.character });
  }
  return out;
}
