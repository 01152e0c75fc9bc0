/**
 * Reader for the CSPro ≤ 7.7 text `.dcf` form (docs/cspro-formats.md#text-dictionaries), following CSPro's
 * own converter (Pre80SpecFile.cpp) rather than CSWeb's parser: command names are
 * case-insensitive, `[NoEdit]` may come before `[Dictionary]`, Required defaults to Yes, binary
 * DataTypes are accepted, special names are case-insensitive, OccurrenceLabel takes `,` or `:`,
 * relations may have several parts. Unknown commands are refused, as CSPro refuses them.
 */

import type { ErrorDetails } from '../../shared/errors.js';
import { dictInvalid, type Locate, type SourceSpot } from './dict-error.js';
import { splitTextLabels } from './labels.js';
import { itemEnd } from './layout.js';
import type {
  Dictionary,
  DictItem,
  DictLevel,
  DictRecord,
  DictValue,
  Language,
  OccurrenceLabel,
  Relation,
  RelationLink,
  ValuePair,
  ValueSet,
} from './model.js';
import { normalizeItem, tidyOccurrenceLabels, toContentType, toSpecialName } from './normalize-item.js';
import { lexSpecText, type SpecCommand } from './text-lexer.js';

/** A parsed text dictionary before the shared layout and validation passes. */
export interface ParsedTextDictionary {
  dict: Dictionary;
  locate: Locate;
}

/** Parses the text of a text-form dictionary into the model. */
export function parseTextDictionary(text: string): ParsedTextDictionary {
  return new TextDictionaryReader(lexSpecText(text)).read();
}

type Section = 'prelude' | 'dictionary' | 'level' | 'ids' | 'record' | 'item' | 'valueset' | 'value' | 'relation';

// Model field each command sets, so validation errors can point at the line of that command.
const FIELD_OF_COMMAND: Record<string, string> = {
  NAME: 'name',
  START: 'start',
  LEN: 'length',
  OCCURRENCES: 'occurrences',
  DECIMAL: 'decimals',
  DECIMALCHAR: 'decimalMark',
  DATATYPE: 'contentType',
  ITEMTYPE: 'subitem',
  RECORDTYPEVALUE: 'recordType',
  MAXRECORDS: 'maxOccurrences',
  RECORDTYPESTART: 'recordTypeStart',
  RECORDTYPELEN: 'recordTypeLength',
  RECORDLEN: 'recordLen',
  PRIMARY: 'primary',
  LINK: 'link',
};

const SECTION_TAG: Record<Section, string> = {
  prelude: '',
  dictionary: '[Dictionary]',
  level: '[Level]',
  ids: '[IdItems]',
  record: '[Record]',
  item: '[Item]',
  valueset: '[ValueSet]',
  value: 'Value',
  relation: '[Relation]',
};

interface Spot {
  line: number;
  fields: Map<string, number>;
}

/** Per-entity accumulators that only exist while the entity is being read. */
interface Pending {
  notes: string[];
  aliases: Set<string>;
  occurrenceLabels: OccurrenceLabel[];
}

class TextDictionaryReader {
  private readonly spots = new Map<object, Spot>();
  private readonly pending = new Map<object, Pending>();
  private languages: Language[] = [];
  private slots = 1;
  private section: Section = 'prelude';
  private cmd: SpecCommand = { command: '', argument: '', line: 0 };
  private dict!: Dictionary;
  private level: DictLevel | undefined;
  private record: DictRecord | undefined;
  private idsOpen = false;
  private item: DictItem | undefined;
  private valueSet: ValueSet | undefined;
  private value: DictValue | undefined;
  private relation: Relation | undefined;
  private relationPart: RelationLink | undefined;
  /** Declared RecordLen of each record: CSPro recomputes it, but an item past it betrays a damaged file. */
  private readonly declaredRecordLengths = new Map<DictRecord, number>();

  constructor(private readonly commands: SpecCommand[]) {}

  read(): ParsedTextDictionary {
    const body = this.takeLanguages();
    this.slots = Math.max(1, this.languages.length);
    let sawDictionary = false;
    for (const cmd of body) {
      this.cmd = cmd;
      const upper = cmd.command.toUpperCase();
      if (upper === '[NOEDIT]') {
        if (sawDictionary) this.dict.editable = false;
        else this.noEditFirst = true;
        continue;
      }
      if (!sawDictionary) {
        if (upper !== '[DICTIONARY]') {
          this.fail(`the file must start with [Dictionary] (optionally preceded by [NoEdit]), found ${JSON.stringify(cmd.command)}`);
        }
        sawDictionary = true;
        this.startDictionary();
        continue;
      }
      if (cmd.command.startsWith('[')) this.startSection(upper);
      else this.attribute(upper);
    }
    if (!sawDictionary) this.fail('the file has no [Dictionary] section', { line: 1 });
    this.finishAll();
    return { dict: this.dict, locate: (entity, field) => this.locate(entity, field) };
  }

  private noEditFirst = false;

  /** Reads `[Languages]` first, as CSPro does, because every label before it needs the language count. */
  private takeLanguages(): SpecCommand[] {
    const start = this.commands.findIndex((c) => c.command.toUpperCase() === '[LANGUAGES]');
    const firstLevel = this.commands.findIndex((c) => c.command.toUpperCase() === '[LEVEL]');
    if (start < 0) return this.commands;
    const header = this.commands[start];
    if (header !== undefined && firstLevel >= 0 && start > firstLevel) {
      this.cmd = header;
      this.fail('[Languages] must come before the first [Level]');
    }
    let end = start + 1;
    for (; end < this.commands.length; end++) {
      const c = this.commands[end];
      if (c === undefined || c.command.startsWith('[')) break;
      this.cmd = c;
      if (c.command === '') this.fail('a language line must be NAME=Label');
      if (this.languages.some((l) => l.name.toUpperCase() === c.command.toUpperCase())) {
        this.fail(`language ${c.command} is defined twice`);
      }
      this.languages.push({ name: c.command, label: c.argument });
    }
    return [...this.commands.slice(0, start), ...this.commands.slice(end)];
  }

  private startDictionary(): void {
    this.dict = {
      name: '',
      labels: splitTextLabels('', this.slots),
      version: '',
      aliases: [],
      languages: this.languages,
      recordType: { start: 0, length: 0 },
      relativePositions: false,
      defaults: { zeroFill: false, decimalMark: false },
      editable: !this.noEditFirst,
      levels: [],
      relations: [],
    };
    this.open(this.dict);
    this.section = 'dictionary';
  }

  private startSection(upper: string): void {
    switch (upper) {
      case '[DICTIONARY]':
        return this.fail('[Dictionary] appears twice');
      case '[LANGUAGES]':
        return this.fail('[Languages] appears twice');
      case '[LEVEL]': {
        if (this.section === 'relation') this.fail('[Level] cannot follow [Relation]');
        this.finishLevel();
        const level: DictLevel = { name: '', labels: splitTextLabels('', this.slots), aliases: [], ids: [], records: [] };
        this.dict.levels.push(level);
        this.level = level;
        this.open(level);
        this.section = 'level';
        return;
      }
      case '[IDITEMS]': {
        if (this.level === undefined || this.section === 'relation') this.fail('[IdItems] must be inside a [Level]');
        if (this.record !== undefined || this.idsOpen) this.fail('[IdItems] must come once, before the [Record] sections of its [Level]');
        this.finishItem();
        this.idsOpen = true;
        this.section = 'ids';
        return;
      }
      case '[RECORD]': {
        if (this.level === undefined || this.section === 'relation') this.fail('[Record] must be inside a [Level]');
        this.finishRecord();
        this.idsOpen = false;
        const record: DictRecord = {
          name: '',
          labels: splitTextLabels('', this.slots),
          aliases: [],
          recordType: '',
          required: true,
          maxOccurrences: 1,
          occurrenceLabels: [],
          items: [],
          length: 0,
        };
        this.level.records.push(record);
        this.record = record;
        this.open(record);
        this.section = 'record';
        return;
      }
      case '[ITEM]': {
        if (this.level === undefined || this.section === 'relation' || (!this.idsOpen && this.record === undefined)) {
          this.fail('[Item] must follow [IdItems] or a [Record]');
        }
        this.finishItem();
        const item: DictItem = {
          name: '',
          labels: splitTextLabels('', this.slots),
          aliases: [],
          start: 0,
          length: 1,
          contentType: 'numeric',
          subitem: false,
          occurrences: 1,
          occurrenceLabels: [],
          decimals: 0,
          decimalMark: false,
          zeroFill: false,
          valueSets: [],
        };
        if (this.idsOpen) this.level.ids.push(item);
        else this.record?.items.push(item);
        this.item = item;
        this.open(item);
        this.section = 'item';
        return;
      }
      case '[VALUESET]': {
        if (this.item === undefined || this.section === 'relation') this.fail('[ValueSet] must follow an [Item]');
        this.finishValueSet();
        const vs: ValueSet = { name: '', labels: splitTextLabels('', this.slots), values: [] };
        this.item.valueSets.push(vs);
        this.valueSet = vs;
        this.open(vs);
        this.section = 'valueset';
        return;
      }
      case '[RELATION]': {
        if (this.dict.levels.length === 0) this.fail('[Relation] must come after the levels');
        this.finishLevel();
        this.finishRelation();
        const relation: Relation = { name: '', primary: '', links: [] };
        this.dict.relations.push(relation);
        this.relation = relation;
        this.open(relation);
        this.section = 'relation';
        return;
      }
      default:
        return this.fail(`unknown section ${this.cmd.command}`);
    }
  }

  private attribute(upper: string): void {
    if (upper === 'VALUE') return this.startValue();
    if (this.section === 'value' && this.valueAttribute(upper)) return;
    const entity = this.currentEntity();
    if (entity !== undefined && this.base(upper, entity)) return;
    const handled =
      this.section === 'dictionary'
        ? this.dictionaryAttribute(upper)
        : this.section === 'record'
          ? this.recordAttribute(upper)
          : this.section === 'item'
            ? this.itemAttribute(upper)
            : this.section === 'valueset'
              ? this.valueSetAttribute(upper)
              : this.section === 'relation'
                ? this.relationAttribute(upper)
                : false;
    if (!handled) {
      const where = SECTION_TAG[this.section];
      this.fail(`unknown command ${JSON.stringify(this.cmd.command)} in ${where === 'Value' ? 'a Value' : where}`);
    }
  }

  private currentEntity(): object | undefined {
    switch (this.section) {
      case 'dictionary':
        return this.dict;
      case 'level':
        return this.level;
      case 'record':
        return this.record;
      case 'item':
        return this.item;
      case 'valueset':
        return this.valueSet;
      case 'relation':
        return this.relation;
      default:
        return undefined;
    }
  }

  /** Name, Label, Note and Alias, which every named section takes. */
  private base(upper: string, entity: object): boolean {
    const e = entity as { name: string; labels?: string[]; aliases?: string[] };
    switch (upper) {
      case 'NAME':
        if (this.cmd.argument === '') this.fail('Name must not be empty');
        e.name = this.cmd.argument.toUpperCase();
        this.note(entity, 'name');
        return true;
      case 'LABEL':
        if (e.labels === undefined) return false;
        e.labels = splitTextLabels(this.cmd.argument, this.slots);
        return true;
      case 'NOTE':
        this.pendingOf(entity).notes.push(this.cmd.argument);
        return true;
      case 'ALIAS':
        if (e.aliases === undefined) return false;
        if (this.cmd.argument !== '') this.pendingOf(entity).aliases.add(this.cmd.argument.toUpperCase());
        return true;
      default:
        return false;
    }
  }

  private dictionaryAttribute(upper: string): boolean {
    const d = this.dict;
    switch (upper) {
      case 'VERSION':
        d.version = this.cmd.argument;
        return true;
      case 'RECORDTYPESTART':
        d.recordType.start = this.whole('RecordTypeStart', 0);
        this.note(d, 'recordTypeStart');
        return true;
      case 'RECORDTYPELEN':
        d.recordType.length = this.whole('RecordTypeLen', 0);
        this.note(d, 'recordTypeLength');
        return true;
      case 'POSITIONS': {
        const arg = this.cmd.argument.toUpperCase();
        if (arg !== 'RELATIVE' && arg !== 'ABSOLUTE')
          this.fail(`Positions must be Relative or Absolute, got ${JSON.stringify(this.cmd.argument)}`);
        d.relativePositions = arg === 'RELATIVE';
        return true;
      }
      case 'ZEROFILL':
        d.defaults.zeroFill = this.yesNo('ZeroFill');
        return true;
      case 'DECIMALCHAR':
        d.defaults.decimalMark = this.yesNo('DecimalChar');
        return true;
      case 'SECURITYOPTIONS':
      case 'VALUESETIMAGES':
        return true;
      default:
        return false;
    }
  }

  private recordAttribute(upper: string): boolean {
    const r = this.record;
    if (r === undefined) return false;
    switch (upper) {
      case 'RECORDTYPEVALUE':
        r.recordType = unquote(this.cmd.argument);
        break;
      case 'REQUIRED':
        r.required = this.yesNo('Required');
        break;
      case 'MAXRECORDS':
        r.maxOccurrences = this.whole('MaxRecords', 1);
        break;
      case 'RECORDLEN':
        this.declaredRecordLengths.set(r, this.whole('RecordLen', 1));
        break;
      case 'OCCURRENCELABEL':
      case 'OCCURENCELABEL':
        this.occurrenceLabel(r);
        return true;
      default:
        return false;
    }
    this.note(r, FIELD_OF_COMMAND[upper] ?? upper);
    return true;
  }

  private itemAttribute(upper: string): boolean {
    const it = this.item;
    if (it === undefined) return false;
    switch (upper) {
      case 'START':
        it.start = this.whole('Start', 1);
        break;
      case 'LEN':
        it.length = this.whole('Len', 1);
        break;
      case 'DATATYPE': {
        const type = toContentType(this.cmd.argument);
        if (type === undefined) {
          this.fail(`DataType must be Numeric, Alpha, Image, Audio, Document or Geometry, got ${JSON.stringify(this.cmd.argument)}`);
        }
        it.contentType = type;
        break;
      }
      case 'ITEMTYPE': {
        const arg = this.cmd.argument.toUpperCase();
        if (arg !== 'ITEM' && arg !== 'SUBITEM') this.fail(`ItemType must be Item or SubItem, got ${JSON.stringify(this.cmd.argument)}`);
        it.subitem = arg === 'SUBITEM';
        break;
      }
      case 'OCCURRENCES':
        it.occurrences = this.whole('Occurrences', 1);
        break;
      case 'DECIMAL':
        it.decimals = this.whole('Decimal', 0);
        break;
      case 'DECIMALCHAR':
        it.decimalMark = this.yesNo('DecimalChar');
        break;
      case 'ZEROFILL':
        it.zeroFill = this.yesNo('ZeroFill');
        break;
      case 'CAPTURETYPE':
      case 'CAPTUREDATEFORMAT':
        return true;
      case 'OCCURRENCELABEL':
      case 'OCCURENCELABEL':
        this.occurrenceLabel(it);
        return true;
      default:
        return false;
    }
    this.note(it, FIELD_OF_COMMAND[upper] ?? upper);
    return true;
  }

  private valueSetAttribute(upper: string): boolean {
    if (upper !== 'LINK' || this.valueSet === undefined) return false;
    if (this.cmd.argument !== '') this.valueSet.link = this.cmd.argument;
    this.note(this.valueSet, 'link');
    return true;
  }

  /** Attributes that follow a `Value=` line; `Name=` there marks a special value. */
  private valueAttribute(upper: string): boolean {
    const v = this.value;
    if (v === undefined) return false;
    const arg = this.cmd.argument;
    switch (upper) {
      case 'LABEL':
        v.labels = splitTextLabels(arg, this.slots);
        return true;
      case 'NOTE':
        this.pendingOf(v).notes.push(arg);
        return true;
      case 'NAME': {
        const word = arg.split(',')[0] ?? '';
        const special = toSpecialName(word);
        if (special === undefined) {
          this.fail(`Name after a Value must be a special value (MISSING, NOTAPPL, DEFAULT or REFUSED), got ${JSON.stringify(arg)}`);
        }
        v.special = special;
        this.note(v, 'special');
        return true;
      }
      case 'IMAGE':
        if (arg !== '') v.image = arg;
        return true;
      case 'TEXTCOLOR':
        if (arg !== '') v.textColor = arg;
        return true;
      default:
        return false;
    }
  }

  private relationAttribute(upper: string): boolean {
    const rel = this.relation;
    if (rel === undefined) return false;
    const arg = this.cmd.argument.toUpperCase();
    switch (upper) {
      case 'PRIMARY':
        rel.primary = arg;
        this.note(rel, 'primary');
        return true;
      case 'PRIMARYLINK':
      case 'SECONDARY': {
        // As in CSPro, a PrimaryLink or Secondary after a part's Secondary opens the next part.
        if (this.relationPart === undefined || this.relationPart.secondary !== '') {
          this.relationPart = { secondary: '' };
          rel.links.push(this.relationPart);
          this.open(this.relationPart);
        }
        if (upper === 'PRIMARYLINK') {
          if (arg !== '') this.relationPart.primaryLink = arg;
        } else {
          this.relationPart.secondary = arg;
        }
        return true;
      }
      case 'SECONDARYLINK':
        if (this.relationPart === undefined) this.fail('SecondaryLink must follow PrimaryLink or Secondary');
        if (arg !== '') this.relationPart.secondaryLink = arg;
        return true;
      default:
        return false;
    }
  }

  private startValue(): void {
    if (this.section !== 'valueset' && this.section !== 'value') this.fail('Value line before any [ValueSet]');
    const vs = this.valueSet;
    if (vs === undefined) return this.fail('Value line before any [ValueSet]');
    this.finishValue();
    const arg = this.cmd.argument;
    const semi = arg.indexOf(';');
    const pairsText = semi >= 0 ? arg.slice(0, semi) : arg;
    const value: DictValue = {
      labels: splitTextLabels(semi >= 0 ? arg.slice(semi + 1) : '', this.slots),
      pairs: this.valuePairs(pairsText),
    };
    vs.values.push(value);
    this.value = value;
    this.open(value);
    this.section = 'value';
  }

  /** Tokenises `1:5 7 'A' 'B'` like CSPro's GetToken(" :"): quotes are stripped, empty froms skipped. */
  private valuePairs(text: string): ValuePair[] {
    const pairs: ValuePair[] = [];
    let pos = 0;
    const skipSpaces = (): void => {
      while (text[pos] === ' ' || text[pos] === '\t') pos++;
    };
    const token = (stopAtColon: boolean): string => {
      skipSpaces();
      const q = text[pos];
      if (q === "'" || q === '"') {
        const close = text.indexOf(q, pos + 1);
        if (close < 0) this.fail(`unterminated quote in Value ${JSON.stringify(text)}`);
        const out = text.slice(pos + 1, close);
        pos = close + 1;
        return out;
      }
      const begin = pos;
      while (pos < text.length && text[pos] !== ' ' && text[pos] !== '\t' && !(stopAtColon && text[pos] === ':')) pos++;
      return text.slice(begin, pos);
    };
    skipSpaces();
    while (pos < text.length) {
      const from = token(true);
      skipSpaces();
      let to: string | undefined;
      if (text[pos] === ':') {
        pos++;
        to = token(false);
        skipSpaces();
      }
      if (from === '') continue;
      const pair: ValuePair = { from: from.trimEnd() };
      if (to !== undefined && to !== '') pair.to = to.trimEnd();
      pairs.push(pair);
    }
    return pairs;
  }

  private occurrenceLabel(entity: DictItem | DictRecord): void {
    const arg = this.cmd.argument;
    const sep = arg.search(/[,:]/);
    // CSPro silently ignores a label without an occurrence number; so do we.
    if (sep <= 0) return;
    const n = Number(arg.slice(0, sep).trim());
    if (!Number.isInteger(n)) return;
    this.pendingOf(entity).occurrenceLabels.push({ occurrence: n, labels: splitTextLabels(arg.slice(sep + 1), this.slots) });
  }

  // --- closing entities: apply accumulated notes, aliases and occurrence labels, check names ---

  private finishValue(): void {
    if (this.value !== undefined) this.applyPending(this.value);
    this.value = undefined;
  }

  private finishValueSet(): void {
    this.finishValue();
    if (this.valueSet !== undefined) {
      this.requireName(this.valueSet, '[ValueSet]');
      this.applyPending(this.valueSet);
    }
    this.valueSet = undefined;
  }

  private finishItem(): void {
    this.finishValueSet();
    const it = this.item;
    if (it !== undefined) {
      this.requireName(it, '[Item]');
      if (!this.spots.get(it)?.fields.has('start')) this.failAt(it, `[Item] ${it.name} has no Start=`, { item: it.name });
      this.applyPending(it);
      it.occurrenceLabels = tidyOccurrenceLabels(it.occurrenceLabels, it.occurrences);
      normalizeItem(it);
    }
    this.item = undefined;
  }

  private finishRecord(): void {
    this.finishItem();
    const r = this.record;
    if (r !== undefined) {
      this.requireName(r, '[Record]');
      this.applyPending(r);
      r.occurrenceLabels = tidyOccurrenceLabels(r.occurrenceLabels, r.maxOccurrences);
    }
    this.record = undefined;
  }

  private finishLevel(): void {
    this.finishRecord();
    this.idsOpen = false;
    if (this.level !== undefined) {
      this.requireName(this.level, '[Level]');
      this.applyPending(this.level);
    }
    this.level = undefined;
  }

  private finishRelation(): void {
    if (this.relation !== undefined) {
      this.requireName(this.relation, '[Relation]');
      this.applyPending(this.relation);
    }
    this.relation = undefined;
    this.relationPart = undefined;
  }

  private finishAll(): void {
    this.finishLevel();
    this.finishRelation();
    this.requireName(this.dict, '[Dictionary]');
    this.applyPending(this.dict);
    for (const level of this.dict.levels) {
      for (const record of level.records) {
        const declared = this.declaredRecordLengths.get(record);
        if (declared === undefined) continue;
        for (const it of record.items) {
          if (it.subitem || itemEnd(it) <= declared) continue;
          throw dictInvalid(
            this.locate(it, 'start'),
            `[Item] ${it.name}: ends at column ${itemEnd(it)}, past RecordLen=${declared} of [Record] ${record.name}`,
            { record: record.name, item: it.name },
          );
        }
      }
    }
  }

  private requireName(entity: { name: string }, tag: string): void {
    if (entity.name === '') this.failAt(entity, `${tag} has no Name=`);
  }

  private applyPending(entity: object): void {
    const p = this.pending.get(entity);
    if (p === undefined) return;
    const target = entity as { note?: string; aliases?: string[]; occurrenceLabels?: OccurrenceLabel[] };
    const note = joinNotes(p.notes);
    if (note !== '') target.note = note;
    if (target.aliases !== undefined) target.aliases = [...p.aliases].sort();
    if (target.occurrenceLabels !== undefined) target.occurrenceLabels = p.occurrenceLabels;
  }

  // --- source locations ---

  private open(entity: object): void {
    this.spots.set(entity, { line: this.cmd.line, fields: new Map() });
    this.pending.set(entity, { notes: [], aliases: new Set(), occurrenceLabels: [] });
  }

  private pendingOf(entity: object): Pending {
    const p = this.pending.get(entity);
    if (p === undefined) throw new Error('internal: entity was not opened');
    return p;
  }

  private note(entity: object, field: string): void {
    this.spots.get(entity)?.fields.set(field, this.cmd.line);
  }

  private locate(entity: object, field?: string): SourceSpot {
    const spot = this.spots.get(entity);
    if (spot === undefined) return {};
    return { line: (field !== undefined ? spot.fields.get(field) : undefined) ?? spot.line };
  }

  // --- argument checks ---

  private whole(key: string, min: number): number {
    const arg = this.cmd.argument;
    const n = /^\d+$/.test(arg) ? Number(arg) : NaN;
    if (!Number.isSafeInteger(n) || n < min) this.fail(`${key} must be a whole number ≥ ${min}, got ${JSON.stringify(arg)}`);
    return n;
  }

  private yesNo(key: string): boolean {
    const first = this.cmd.argument.charAt(0).toUpperCase();
    if (first !== 'Y' && first !== 'N') this.fail(`${key} must be Yes or No, got ${JSON.stringify(this.cmd.argument)}`);
    return first === 'Y';
  }

  /** Fails at the current line, naming the entity being read. */
  private fail(message: string, at?: { line: number }): never {
    const details: ErrorDetails = {};
    let tag = '';
    if (this.section === 'item' || this.section === 'valueset' || this.section === 'value') {
      tag = `[Item]${this.item?.name ? ' ' + this.item.name : ''}: `;
      if (this.item?.name) details.item = this.item.name;
    } else if (this.section === 'record') {
      tag = `[Record]${this.record?.name ? ' ' + this.record.name : ''}: `;
    } else if (this.section === 'level' || this.section === 'ids') {
      tag = `[Level]${this.level?.name ? ' ' + this.level.name : ''}: `;
    } else if (this.section === 'relation') {
      tag = `[Relation]${this.relation?.name ? ' ' + this.relation.name : ''}: `;
    }
    if (this.record?.name) details.record = this.record.name;
    if (message.startsWith('unknown section') || message.startsWith('[')) tag = '';
    throw dictInvalid({ line: at?.line ?? this.cmd.line }, tag + message, details);
  }

  private failAt(entity: object, message: string, extra: ErrorDetails = {}): never {
    throw dictInvalid(this.locate(entity), message, extra);
  }
}

/** Strips one level of quotes from a quote-delimited argument such as `'H00'`. */
function unquote(argument: string): string {
  const q = argument.charAt(0);
  if (q === "'" || q === '"') {
    const close = argument.indexOf(q, 1);
    return close < 0 ? argument.slice(1) : argument.slice(1, close);
  }
  return argument.trim();
}

/** Joins `Note=` lines as CSPro does: `\r\n` escapes become newlines, lines are separated by a space. */
function joinNotes(lines: readonly string[]): string {
  let out = '';
  for (let line of lines) {
    if (line === '') continue;
    line = line.replaceAll('\\r\\n', '\n');
    if (!line.endsWith('\n')) line += ' ';
    if (line.startsWith('~')) line = ' ' + line.slice(1);
    out += line;
  }
  return out.trim();
}
