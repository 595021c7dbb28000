import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featureCommand, toEditorLocations } from '../src/languageFeatures';

test('features map to the providers VS Code runs', () => {
  assert.equal(featureCommand('definition'), 'vscode.executeDefinitionProvider');
  assert.equal(featureCommand('references'), 'vscode.executeReferenceProvider');
  assert.equal(featureCommand('hover'), undefined);
});

test('Locations and LocationLinks become file places; other schemes are left out', () => {
  const file = (fsPath: string) => ({ scheme: 'file', fsPath });
  const at = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 3 } });
  const got = toEditorLocations([
    { uri: file('/w/a.ts'), range: at(2, 4) },
    { targetUri: file('/w/b.ts'), targetRange: at(0, 0), targetSelectionRange: at(5, 9) },
    { uri: { scheme: 'untitled', fsPath: 'Untitled-1' }, range: at(0, 0) },
    null,
  ]);
  assert.deepEqual(got, [
    { path: '/w/a.ts', line: 2, character: 4 },
    { path: '/w/b.ts', line: 5, character: 9 },
  ]);
  assert.deepEqual(toEditorLocations(undefined), []);
});
