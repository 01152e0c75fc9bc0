// Small valid dictionaries in both forms; the malformed-input tests derive broken variants from them.

/** Composed text dictionary using the features CSWeb's parser gets wrong (see text-form.test.ts). */
export const MINI_TEXT = `\uFEFF[NoEdit]
[Dictionary]
Version=CSPro 7.7
Label=Mini survey|Mini enquête
Name=MINI_DICT
Note=first line\\r\\n
Note=second line
Alias=survey
Alias=Mini
RecordTypeStart=1
RecordTypeLen=1
Positions=Relative
ZeroFill=Yes
DecimalChar=No

[Languages]
EN=English
FR=Français

[Level]
Label=Household
Name=MINI_LEVEL

[IdItems]

[Item]
Label=Province|Province
Name=PROV
Start=2
Len=2
ZeroFill=Yes

[Item]
Label=Household number|Numéro de ménage
Name=HHNUM
Start=4
Len=3
ZeroFill=Yes

[Record]
Label=Housing|Logement
Name=HH_REC
RecordTypeValue='H'
RecordLen=25

[Item]
Label=Roof|Toit
Name=ROOF
Start=7
Len=1

[ValueSet]
Label=Roof|Toit
Name=ROOF_VS1
Value=1;Metal|Tôle
Value=2:3 5;Tile or stone|Tuile ou pierre
Note=tiles and stones
Value=9;Not reported|Non déclaré
name=missing,special

[Item]
Label=Income|Revenu
Name=INCOME
Start=8
Len=8
Decimal=2
ZeroFill=Yes

[Item]
Label=Latitude|Latitude
Name=GPS_LAT
Start=16
Len=10
Decimal=6
DecimalChar=Yes

[Record]
Label=Person|Personne
Name=PERSON_REC
RecordTypeValue='P'
Required=No
MaxRecords=30
RecordLen=43

. the name is alpha; command names are case-insensitive
[Item]
Label=Name|Nom
Name=NAME
Start=7
Len=20
datatype=alpha

[ValueSet]
Label=Letters
Name=NAME_VS1
Value='A' 'B C';Letters

[Item]
Label=Age|Âge
Name=AGE
Start=27
LEN=3

[ValueSet]
Label=Age
Name=AGE_VS1
Link=L1
Value=0:120;years

[Item]
Label=Date of birth|Date de naissance
Name=DOB
Start=30
Len=8

[Item]
Label=Year of birth|Année
Name=DOB_YEAR
Start=30
Len=4
ItemType=SubItem

[Item]
Label=Month of birth|Mois
Name=DOB_MONTH
Start=34
Len=2
ItemType=SubItem

[Item]
Label=Children by &
   union|Enfants par union
Name=CHILDREN
Start=38
Len=2
Occurrences=3
ZeroFill=Yes
OccurrenceLabel=1,First union|Première union
OccurenceLabel=2:Second union

[Record]
Label=Second person record
Name=PERSON_REC2
RecordTypeValue='Q'
Required=No

[Item]
Label=Age again
Name=AGE2
Start=7
Len=3

[ValueSet]
Label=Age again
Name=AGE2_VS1
Link=L1

[Item]
Label=Photo
Name=PHOTO
Start=10
Len=1
DataType=Image

[Relation]
Name=HH_PERSONS
Primary=HH_REC
Secondary=PERSON_REC
PrimaryLink=ROOF
Secondary=PERSON_REC2
SecondaryLink=AGE2
`;

/** Minimal valid CSPro 8 JSON dictionary (relative, record starts omitted). */
export const MINI_JSON = `{
  "software": "CSPro",
  "version": 8.0,
  "fileType": "dictionary",
  "name": "MINI_DICT",
  "labels": [ { "text": "Mini" } ],
  "recordType": { "start": 1, "length": 1 },
  "defaults": { "decimalMark": false, "zeroFill": true },
  "relativePositions": true,
  "levels": [
    {
      "name": "MINI_LEVEL",
      "labels": [ { "text": "Household" } ],
      "ids": { "items": [
        { "name": "PROV", "labels": [ { "text": "Province" } ], "contentType": "numeric", "start": 2, "length": 2 }
      ] },
      "records": [
        {
          "name": "HH_REC",
          "labels": [ { "text": "Housing" } ],
          "recordType": "H",
          "occurrences": { "required": true, "maximum": 1 },
          "items": [
            { "name": "ROOF", "labels": [ { "text": "Roof" } ], "contentType": "numeric", "length": 1 },
            { "name": "WALL", "labels": [ { "text": "Wall" } ], "contentType": "alpha", "length": 4 }
          ]
        },
        {
          "name": "PERSON_REC",
          "labels": [ { "text": "Person" } ],
          "recordType": "P",
          "occurrences": { "required": false, "maximum": 30 },
          "items": [
            { "name": "AGE", "labels": [ { "text": "Age" } ], "contentType": "numeric", "length": 3 }
          ]
        }
      ]
    }
  ]
}
`;
