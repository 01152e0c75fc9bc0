/**
 * The validation of a CSV of accounts (docs/supervision.md#accounts), pure: CSV reading with the
 * line each record starts on, every rule of CSWeb 8.1 and of sds's passwords, the role names,
 * duplicates in the file and in the store, and that every bad line is reported with its number.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readCsvRecords, type CsvRecord } from '../../../src/core/auth/users-csv.js';
import { planUsersImport, type ImportPlanOptions } from '../../../src/core/auth/users-import-plan.js';
import { roleFromName } from '../../../src/core/auth/role-name.js';
import { checkProfileInput } from '../../../src/core/auth/profile-input.js';
import { AppError } from '../../../src/shared/errors.js';

/** The roles of a new store, and a custom one. */
const ROLES = ['API', 'Administrator', 'Developer', 'Standard User', 'Supervisor'];
const OPTS: ImportPlanOptions = { header: false, update: false, existing: [], roles: ROLES };

function records(text: string): CsvRecord[] {
  const r = readCsvRecords(text);
  assert.ok(r.ok, JSON.stringify(r));
  return r.records;
}

/** The problems of a file of one line `line` (after a good first line), as `field: message`. */
function problemsOf(line: string, opts: Partial<ImportPlanOptions> = {}): string[] {
  const plan = planUsersImport(records(`good0001,Ann,Lee,Standard,long-enough-1\n${line}\n`), { ...OPTS, ...opts });
  assert.ok(
    plan.problems.every((p) => p.line === 2),
    JSON.stringify(plan.problems),
  );
  return plan.problems.map((p) => `${p.field ?? '-'}: ${p.message}`);
}

describe('readCsvRecords', () => {
  it('gives each record the line it starts on, across blank lines, quoted line breaks and CRLF, CR or LF', () => {
    const r = records('\uFEFFa,b\r\n\r\n"c\r\nd",e\rx,y\n   \n"p,q","r""s"\n');
    assert.deepEqual(
      r.map((x) => [x.line, x.fields]),
      [
        [1, ['a', 'b']],
        [3, ['c\nd', 'e']],
        [5, ['x', 'y']],
        [7, ['p,q', 'r"s']],
      ],
    );
  });

  it('reports a syntax error with its line', () => {
    const r = readCsvRecords('a,b\nc,"d\ne,f\n');
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.line >= 2, JSON.stringify(r));
    assert.match(!r.ok ? r.message : '', /cannot be read/);
  });
});

describe('planUsersImport', () => {
  it('plans a good file: trimmed fields, CSWeb role names, optional email and phone', () => {
    const plan = planUsersImport(
      records(
        [
          ' amina01 , Amina , Diallo ,Standard User,secret pass 1,amina@example.org,+221 77 123 45 67',
          'BOB2,Bob,Ng,administrator,  spaced password  ',
          "carl3,José-María,O'Neil de la Cruz,API,long-enough-3,,",
          'devi4,प्रिया,Ñúñez,standard,long-enough-4,devi@sub.example.org',
        ].join('\n'),
      ),
      OPTS,
    );
    assert.deepEqual(plan.problems, []);
    assert.deepEqual(
      plan.rows.map((r) => [r.line, r.username, r.role, r.password, r.action]),
      [
        [1, 'amina01', 'Standard User', 'secret pass 1', 'add'],
        [2, 'BOB2', 'Administrator', '  spaced password  ', 'add'],
        [3, 'carl3', 'API', 'long-enough-3', 'add'],
        [4, 'devi4', 'Standard User', 'long-enough-4', 'add'],
      ],
    );
    assert.deepEqual(plan.rows[0]!.profile, {
      firstName: 'Amina',
      lastName: 'Diallo',
      email: 'amina@example.org',
      phone: '+221 77 123 45 67',
    });
    assert.deepEqual(plan.rows[2]!.profile, { firstName: 'José-María', lastName: "O'Neil de la Cruz", email: null, phone: null });
  });

  it('maps role names in one place: the roles of the store and the old Standard, any case', () => {
    assert.equal(roleFromName('Standard User', ROLES), 'Standard User');
    assert.equal(roleFromName(' standard user ', ROLES), 'Standard User');
    assert.equal(roleFromName('Standard', ROLES), 'Standard User');
    assert.equal(roleFromName('API', ROLES), 'API');
    assert.equal(roleFromName('ADMINISTRATOR', ROLES), 'Administrator');
    assert.equal(roleFromName('developer', ROLES), 'Developer');
    assert.equal(roleFromName('supervisor', ROLES), 'Supervisor');
    assert.equal(roleFromName('Admin', ROLES), undefined);
  });

  it('checks the number of columns: 5 to 7', () => {
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard'), [
      '-: has 4 columns; expected 5 to 7: username, first name, last name, role name, password, email, phone',
    ]);
    assert.equal(problemsOf('user0002,Ann,Lee,Standard,long-enough-2,a@b.org,123,extra').length, 1);
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard,long-enough-2,a@b.org,123'), []);
  });

  it('checks user names as CSWeb 8.1 does: 4 to 64 ASCII letters and digits', () => {
    assert.deepEqual(problemsOf('abc,Ann,Lee,Standard,long-enough-2'), [
      'username: user name "abc" is not valid: 4-64 letters (A-Z, a-z) and digits',
    ]);
    assert.deepEqual(problemsOf(`${'a'.repeat(64)},Ann,Lee,Standard,long-enough-2`), []);
    assert.equal(problemsOf(`${'a'.repeat(65)},Ann,Lee,Standard,long-enough-2`).length, 1);
    for (const bad of ['ann.lee', 'ann_lee', 'ann-lee', 'ann lee', 'anné01', '']) {
      assert.equal(problemsOf(`${bad},Ann,Lee,Standard,long-enough-2`).length, 1, bad);
    }
  });

  it("checks names: letters of any script, ' - and space, 1 to 100 characters", () => {
    assert.deepEqual(problemsOf(`user0002,${'é'.repeat(100)},${'Ж'.repeat(100)},Standard,long-enough-2`), []);
    assert.deepEqual(problemsOf(`user0002,${'a'.repeat(101)},Lee,Standard,long-enough-2`), [
      'first name: first name has 101 characters, more than 100',
    ]);
    assert.deepEqual(problemsOf('user0002,Ann,,Standard,long-enough-2'), ['last name: last name is empty']);
    assert.deepEqual(problemsOf('user0002,Ann2,Lee,Standard,long-enough-2'), [
      'first name: first name may hold only letters, apostrophes, hyphens and spaces',
    ]);
    assert.equal(problemsOf('user0002,Ann,Lee.,Standard,long-enough-2').length, 1);
  });

  it("checks the role name and sds's password rule (at least 8 characters)", () => {
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Boss,long-enough-2'), [
      'role name: role "Boss" is not one of API, Administrator, Developer, Standard User, Supervisor',
    ]);
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard,1234567'), ['password: the password must have at least 8 characters']);
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard,12345678'), []);
  });

  it('checks email (valid, up to 254) and phone (up to 30, no control characters) when given', () => {
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard,long-enough-2,not-an-address'), [
      'email: email "not-an-address" is not a valid address',
    ]);
    assert.equal(problemsOf('user0002,Ann,Lee,Standard,long-enough-2,a@b@c.org').length, 1);
    assert.equal(problemsOf(`user0002,Ann,Lee,Standard,long-enough-2,${'a'.repeat(243)}@example.org`).length, 1);
    assert.deepEqual(problemsOf(`user0002,Ann,Lee,Standard,long-enough-2,${'a'.repeat(64)}@example.org`), []);
    assert.deepEqual(problemsOf(`user0002,Ann,Lee,Standard,long-enough-2,,${'1'.repeat(31)}`), [
      'phone: phone has 31 characters, more than 30',
    ]);
    assert.deepEqual(problemsOf('user0002,Ann,Lee,Standard,long-enough-2,,"12\t34"'), ['phone: phone holds a control character']);
    assert.deepEqual(problemsOf(`user0002,Ann,Lee,Standard,long-enough-2,,${'1'.repeat(30)}`), []);
  });

  it('reports every problem of every line, each with its line number, and plans nothing from a bad line', () => {
    const plan = planUsersImport(
      records(
        [
          'username,first name,last name,role name,password,email,phone',
          'good0001,Ann,Lee,Standard,long-enough-1',
          '',
          'ab,Ann,Lee,Boss,short',
          '"multi","Line',
          'Break",Lee,API,long-enough-5',
          'good0006,Ann,Lee,API,long-enough-6',
        ].join('\n'),
      ),
      { ...OPTS, header: true },
    );
    assert.deepEqual(
      plan.problems.map((p) => [p.line, p.field]),
      [
        [4, 'username'],
        [4, 'role name'],
        [4, 'password'],
        [5, 'first name'],
      ],
    );
    assert.deepEqual(
      plan.rows.map((r) => r.line),
      [2, 7],
    );
    assert.equal(plan.headerSuspected, false);
  });

  it('reads a header row as an account unless told, and says it looks like one', () => {
    const text = 'username,first name,last name,role name,password\ngood0001,Ann,Lee,Standard,long-enough-1\n';
    const without = planUsersImport(records(text), OPTS);
    assert.deepEqual(
      without.problems.map((p) => [p.line, p.field]),
      [[1, 'role name']],
    );
    assert.equal(without.headerSuspected, true);
    const withHeader = planUsersImport(records(text), { ...OPTS, header: true });
    assert.deepEqual(withHeader.problems, []);
    assert.deepEqual(
      withHeader.rows.map((r) => r.username),
      ['good0001'],
    );
  });

  it('refuses a user name twice in the file, compared without case, naming the first line', () => {
    const plan = planUsersImport(
      records('anna0001,Ann,Lee,Standard,long-enough-1\nother001,O,P,API,long-enough-2\nANNA0001,Ann,Lee,API,long-enough-3\n'),
      OPTS,
    );
    assert.deepEqual(plan.problems, [{ line: 3, field: 'username', message: 'user name ANNA0001 is also on line 1' }]);
  });

  it('refuses an existing account unless updating is asked, and one differing only in case always', () => {
    const text = 'anna0001,Ann,Lee,Standard,long-enough-1\nbert0002,Bert,Ng,API,long-enough-2\n';
    const refused = planUsersImport(records(text), { ...OPTS, existing: ['anna0001', 'BERT0002'] });
    assert.deepEqual(refused.problems, [
      { line: 1, field: 'username', message: 'an account anna0001 exists already, and updating accounts was not asked', exists: true },
      { line: 2, field: 'username', message: 'an account BERT0002 exists already, differing only in case' },
    ]);
    const updating = planUsersImport(records('anna0001,Ann,Lee,Standard,long-enough-1\ncarl0003,C,D,API,long-enough-3\n'), {
      ...OPTS,
      update: true,
      existing: ['anna0001'],
    });
    assert.deepEqual(updating.problems, []);
    assert.deepEqual(
      updating.rows.map((r) => [r.username, r.action]),
      [
        ['anna0001', 'update'],
        ['carl0003', 'add'],
      ],
    );
  });
});

describe('checkProfileInput (sds users add/update)', () => {
  it('trims, clears a field given empty, leaves out a field not given, and refuses a bad one naming it', () => {
    assert.deepEqual(checkProfileInput({ first_name: ' Amina ', email: '', phone: '+221 77' }), {
      firstName: 'Amina',
      email: null,
      phone: '+221 77',
    });
    assert.throws(
      () => checkProfileInput({ email: 'nope' }),
      (e: unknown) => e instanceof AppError && e.code === 'USAGE' && e.details.field === 'email',
    );
    assert.throws(
      () => checkProfileInput({ last_name: 'L33' }),
      (e: unknown) => e instanceof AppError && e.code === 'USAGE' && e.details.field === 'last_name',
    );
  });
});
