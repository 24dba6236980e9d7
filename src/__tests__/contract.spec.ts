/**
 * The payload interfaces (`src/generated/rest.ts`, generated from the schema and
 * re-exported by `payloads.ts` and `tokens.ts`) against the REST contract
 * (`jupyter_kernel_state/schema/rest-v1.json`): every property of every payload, and
 * whether it is required, must be the same on both sides — a check of the generator's
 * overrides (`rest/typescript.py`), which may change a type but never a field.
 *
 * The generated file is read with the TypeScript compiler API (declarations only, no
 * type checking).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { withVariableDefaults } from '../payloads';

interface ISchemaNode {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  allOf?: ISchemaNode[];
  anyOf?: ISchemaNode[];
  items?: ISchemaNode;
  required?: string[];
  properties?: Record<string, ISchemaNode>;
}

const ROOT = path.join(__dirname, '..', '..');
const schema = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, 'jupyter_kernel_state', 'schema', 'rest-v1.json'),
    'utf-8'
  )
) as { $defs: Record<string, ISchemaNode> };

/**
 * Each object of the schema — a `$defs` entry or an inline object found by a path —
 * and the interface of `payloads.ts` that mirrors it.
 */
const OBJECTS: [string, string][] = [
  ['KernelList', 'IKernelList'],
  ['KernelSummary', 'IKernelSummary'],
  ['Snapshot', 'ISnapshot'],
  ['ListedVariable', 'IListedVariable'],
  ['Variable', 'IVariable'],
  ['VariableDetail', 'IVariableDetail'],
  ['VariableDetail.attributes[]', 'IAttribute'],
  ['VariableDetail.children[]', 'IChild'],
  ['VariableDetail.columns[]', 'IColumn'],
  ['Annotation', 'IAnnotation'],
  ['PromptResult', 'IPromptResult'],
  ['Image', 'IImage'],
  ['ImageList', 'IImageList'],
  ['History', 'IHistory'],
  ['History.entries[]', 'IHistoryEntry'],
  ['Timeline', 'ITimeline'],
  ['Timeline.entries[]', 'ITimelineEntry'],
  ['RowsWindow', 'IRowsWindow'],
  ['RowsWindow.columns[]', 'IRowsColumn'],
  ['EngineInfo', 'IEngineInfo'],
  ['EngineDetail', 'IEngineDetail'],
  ['CountResult', 'ICountResult'],
  ['FilterCondition', 'IFilterCondition'],
  ['View', 'IView'],
  ['ViewCode', 'IViewCode'],
  ['TableProfile', 'ITableProfile'],
  ['ColumnProfile', 'IColumnProfile'],
  ['ColumnProfile.top[]', 'IValueCount'],
  ['TableFindings', 'ITableFindings'],
  ['TableFindings.errors[]', 'IFindingError'],
  ['TableFindings.not_checked[]', 'IFindingNotChecked'],
  ['Finding', 'IFinding'],
  ['VariableBrief', 'IVariableBrief'],
  ['VariableBrief.columns[]', 'IColumn'],
  ['TableComparison', 'ITableComparison'],
  ['TableComparison.window_columns[]', 'IComparedColumn'],
  ['ColumnComparison', 'IColumnComparison'],
  ['ComparedRow', 'IComparedRow'],
  ['KeptVersion', 'IKeptVersion'],
  ['KeptVersions', 'IKeptVersions'],
  ['LineageExecution', 'ILineageExecution'],
  ['LineageNote', 'ILineageNote']
];

/**
 * `$defs` entries without a TypeScript interface, and why.
 */
const NOT_MIRRORED: Record<string, string> = {
  Kind: 'an enum: compared with VariableKind below',
  Error: 'error bodies surface as ServerConnection.ResponseError',
  FilterNode:
    'a union (anyOf): the type FilterNode of IFilterCondition, IFilterAll, IFilterAny',
  FilterScalar: 'a union of scalars: the type FilterScalar'
};

/**
 * The property names of a schema object, each with whether it is required
 * (`allOf` members merged in).
 */
function schemaFields(node: ISchemaNode): Record<string, boolean> {
  let fields: Record<string, boolean> = {};
  for (const part of node.allOf ?? []) {
    fields = { ...fields, ...schemaFields(resolve(part)) };
  }
  const required = new Set(node.required ?? []);
  for (const name of Object.keys(node.properties ?? {})) {
    fields[name] = required.has(name);
  }
  for (const name of required) {
    fields[name] = true; // a composition may require what a member leaves optional
  }
  return fields;
}

function resolve(node: ISchemaNode): ISchemaNode {
  if (node.$ref) {
    const name = node.$ref.replace('#/$defs/', '');
    return schema.$defs[name];
  }
  return node;
}

/**
 * `Def.prop[]` → the items of `prop` in `$defs.Def`; `Def.prop` → the property itself.
 */
function schemaObject(where: string): ISchemaNode {
  const [def, ...steps] = where.split('.');
  let node = schema.$defs[def];
  for (const step of steps) {
    const name = step.replace(/\[\]$/, '');
    node = resolve(node.properties![name]);
    if (step.endsWith('[]')) {
      node = resolve(node.items!);
    }
  }
  return node;
}

const source = ts.createSourceFile(
  'rest.ts',
  fs.readFileSync(path.join(ROOT, 'src', 'generated', 'rest.ts'), 'utf-8'),
  ts.ScriptTarget.Latest,
  true
);
const interfaces = new Map<string, ts.InterfaceDeclaration>();
const aliases = new Map<string, ts.TypeAliasDeclaration>();
source.forEachChild(node => {
  if (ts.isInterfaceDeclaration(node)) {
    interfaces.set(node.name.text, node);
  } else if (ts.isTypeAliasDeclaration(node)) {
    aliases.set(node.name.text, node);
  }
});

/**
 * The property names of an interface, each with whether it is required (not `?`),
 * inherited members from interfaces of the same file included.
 */
function tsFields(name: string): Record<string, boolean> {
  const declaration = interfaces.get(name);
  if (!declaration) {
    throw new Error(`generated/rest.ts declares no interface ${name}`);
  }
  let fields: Record<string, boolean> = {};
  for (const clause of declaration.heritageClauses ?? []) {
    for (const type of clause.types) {
      const base = type.expression.getText(source);
      if (interfaces.has(base)) {
        fields = { ...fields, ...tsFields(base) };
      }
    }
  }
  for (const member of declaration.members) {
    if (ts.isPropertySignature(member)) {
      fields[member.name.getText(source)] = !member.questionToken;
    }
  }
  return fields;
}

/**
 * The string literals of a union type alias.
 */
function literals(name: string): string[] {
  const alias = aliases.get(name);
  if (!alias || !ts.isUnionTypeNode(alias.type)) {
    throw new Error(`generated/rest.ts declares no union ${name}`);
  }
  return alias.type.types
    .filter(ts.isLiteralTypeNode)
    .map(type => (type.literal as ts.StringLiteral).text);
}

describe('generated/rest.ts against schema/rest-v1.json', () => {
  it.each(OBJECTS)(
    '%s ↔ %s: same fields, same required-ness',
    (where, name) => {
      expect(tsFields(name)).toEqual(schemaFields(schemaObject(where)));
    }
  );

  it('mirrors every $defs entry or says why not', () => {
    const covered = new Set([
      ...OBJECTS.map(([where]) => where.split('.')[0]),
      ...Object.keys(NOT_MIRRORED)
    ]);
    expect(Object.keys(schema.$defs).filter(def => !covered.has(def))).toEqual(
      []
    );
  });

  it("a listed variable left lean is made whole with the schema's defaults", () => {
    const listed = schemaObject('ListedVariable');
    const optional = Object.entries(listed.properties!).filter(
      ([name]) => !(listed.required ?? []).includes(name)
    );
    const whole = withVariableDefaults({
      name: 'v',
      type: 'int',
      kind: 'number',
      preview: '1'
    }) as unknown as Record<string, unknown>;
    expect(Object.keys(whole).sort()).toEqual(
      Object.keys(schemaFields(schemaObject('Variable'))).sort()
    );
    for (const [name, node] of optional) {
      const expected =
        name === 'qualname' ? 'int' : (node as { default?: unknown }).default;
      expect([name, whole[name]]).toEqual([name, expected]);
    }
  });

  it('VariableKind lists the kinds of the schema', () => {
    expect(literals('VariableKind').sort()).toEqual(
      (schema.$defs.Kind.enum as string[]).slice().sort()
    );
  });

  it('VariableChange lists the changes of the schema', () => {
    expect(literals('VariableChange').sort()).toEqual(
      (schemaObject('ListedVariable').properties!.change.enum as string[])
        .slice()
        .sort()
    );
  });

  it('CodeSyntax lists the syntaxes of the schema', () => {
    expect(literals('CodeSyntax').sort()).toEqual(
      (schemaObject('ViewCode').properties!.syntax.enum as string[])
        .slice()
        .sort()
    );
  });

  it('EngineName lists the engines of the schema', () => {
    expect(literals('EngineName').sort()).toEqual(
      (schemaObject('EngineInfo').properties!.name.enum as string[])
        .slice()
        .sort()
    );
  });

  it('detects a field missing on either side', () => {
    const fields = tsFields('IAnnotation');
    const expected = schemaFields(schemaObject('Annotation'));
    expect({ ...fields, extra: true }).not.toEqual(expected);
    const { updated_at, ...fewer } = fields;
    expect(updated_at).toBe(true);
    expect(fewer).not.toEqual(expected);
  });
});
