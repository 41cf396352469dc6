import Testing

/// The shrunk scripts of the bugs `folio-sim` found, each replayed by ``FolioSimTests``.
enum SimulationRegressions {
  struct Case: Sendable, CustomTestStringConvertible {
    var seed: UInt64
    /// The shrunk script, or nil for the seed's own steps.
    var script: String?
    var bug: String
    var testDescription: String { "seed \(seed): \(bug)" }
  }

  static let all: [Case] = [
    Case(
      seed: 9, script: "-1:remoteCreate:9a289ee1e646bff3,0:edit:aa69a7791c46c73b,-1:remoteRename:8707ec73867f1c46",
      bug: "path-keyed: edits re-created where their renamed file was stayed 'not uploaded' for ever"),
    Case(
      seed: 11, script: "-1:remoteCreate:74ffcb0cd8e94304,0:edit:aa747017c50e2566,1:delete:d22bd5d674e6a120",
      bug: "path-keyed: edits of a file deleted elsewhere, re-created, stayed dirty"),
    Case(
      seed: 33, script: "0:makeFolder:74f2119161c24ca5,1:create:57a35bbb6515d3a0,-1:remoteDelete:11e9b3f18599a792",
      bug: "a new file put into a folder deleted elsewhere before it was sent failed for good"),
    Case(
      seed: 27,
      script: "1:makeFolder:2a1b3b46de4ad356,-1:remoteCreate:27019394a6dba6ff,1:edit:9558f54b56127814,1:sync:f4b56f7e22a8a3de:0.25,-1:remoteRename:cb889ff5661434bb",
      bug: "path-keyed: the children of a folder renamed elsewhere stayed in the index for ever"),
    Case(
      seed: 6,
      script: "1:makeFolder:8aed188b2550aaa,0:create:2f7492db6123bbe,-1:remoteDelete:6bc3b3429e08873f",
      bug: "a file uploaded into a folder trashed elsewhere meanwhile read as live"),
    Case(
      seed: 302,
      script: "0:create:1080c10bbf89e9f1,0:create:4da61f54fe0be0ee:0.25,1:create:8384a6639ef6c8bc,0:makeFolder:53928717d64357ad,0:create:f8f898186e0b2bef,0:sync:2163c74d6c6e60be,1:sync:86c17852988dbe32,-1:remoteDelete:30fecc9f27ec4d9a",
      bug: "the indexed children of a folder trashed elsewhere, the folder itself not indexed, read as live"),
    Case(
      seed: 317,
      script: "0:create:2927f976439ca863,0:makeFolder:3d3bb94924c841bd,0:create:f66d7b9dc672cb5a,1:create:6d903230297ce13f,1:create:3ebfb3a8367de049,0:crash:88b1f9d0418f611d,0:delete:e50c42757267269d,1:create:3a95830a131bdf92,1:create:15322b65ad417810",
      bug: "a file put into a folder trashed elsewhere before the first sync read as live"),
    Case(
      seed: 377,
      script: "1:restore:d9501f3930905609:0.25,1:restore:9166bda00723759b,-1:remoteCreate:c8743ddfead3e940,1:makeFolder:2bc8b8fe4b3b5858,0:makeFolder:a4bbb87c000c6b46,0:create:7a25294d27bd25ed,1:create:ab7dd247fd0c989f,1:sync:9fd33421562e471b,0:create:6e11a83051cf437f,0:delete:abb174eb07c129e1",
      bug: "a file uploaded into a folder this machine trashed meanwhile read as live"),
    Case(
      seed: 1092,
      script: "0:makeFolder:31a86fd9d62a784f,2:create:3811f1f85ec2a339,2:sync:e9efdd801ea652be,2:sync:cd4b021ef5a5dfc5,1:makeFolder:907f4c8ea15e09df,2:move:3d4346fd2dff0f04,0:delete:f1dc36ff06971372,2:rename:3e1ad8d463eaaf35,0:create:e045f1fa00c3d69c,0:move:6df521a9f7db6951,0:sync:3a1502e339374b9c,2:create:dff026e880eef79f,2:edit:3935dab5cfffff12,-1:remoteDelete:cd1b2a79b790adf0,2:sync:7353f6406198f5ec",
      bug: "folio sync never retried a transfer that had failed four times in earlier runs"),
    Case(
      seed: 1573,
      script: "0:create:ebe5afcf75f98c29,0:makeFolder:4bfaca2c852e6ab3,0:create:97ea0cbc3fa93630,-1:remoteDelete:2a2a56bf5bdcee29,0:create:95d9f1d7169cfe05,0:sync:9be6a9a21fccdf30,-1:remoteCreate:b5440b4be816e84c,0:edit:efb1c1ff6efa5779,-1:remoteDelete:83292387251186d0,0:pin:cfe78a0a45c7933b,0:edit:62a75c9b05076567,0:open:1f0914b7c7664791,0:sync:b059e389afdc927d,0:sync:764ad0595bf16335,1:create:b1651b2cfc811e30,0:create:f624c3b3c09dfa21,1:edit:2e8d84b1a5119028,0:edit:ff34018a884343d0,0:create:6fb3b1c3e2998b83,0:create:6723cc46037ce8a9,-1:remoteCreate:ec98bf932d463e31,-1:remoteEdit:bfdbb957177c5c7e,0:sync:5227c0c31943a151,1:sync:20133dfa3019cae1,0:edit:b6187af591b3d9b7",
      bug: "a refused stale write whose lookup got a 503 latched the location: an open waited for ever"),
    Case(
      seed: 1106,
      script: "2:create:344cf60ddc2963a5,2:makeFolder:bbf125fd29e55c7a,0:crash:2a6c507ba383dae8,0:evict:92cf654be7127f8b,0:tag:d7877725eefd5496:0.25,2:sync:bc23d292444e4c3f,0:edit:3b6c81d6b151dea5,0:create:6412e9014fc1f1ca,0:delete:4db1c0f00d190672,0:sync:2c36530cd4d6ef32,2:makeFolder:33b783cd85b1d6c2,2:makeFolder:7750e7c24f8f6958,0:edit:154bf3a4a2f0b2d5,0:open:b9790af7d5cf35cb:0.25,-1:remoteRename:3e6c7ae96d9c094d,0:create:64d6018145d4a6ec,0:pin:138860a92c49e0eb,-1:remoteDelete:d1c6b02f46d004e1,-1:remoteDelete:d1518dae1c0e32ca,0:pin:986b0a31b1ec9f71,-1:remoteEdit:8099f34c3f8fa065,0:sync:42e72b1deff3b445",
      bug: "a conflict whose lookup of the original failed took the original for deleted and dropped its row"),
    Case(
      seed: 494, script: "-1:remoteCreate:5866c014873d4b68,-1:remoteCreate:223fd28a5c8dccc2,0:open:a27b8746c757e578,0:tag:84d9853f68fa6a6b:0.25,2:makeFolder:c45f266f31df9591,0:create:119be161c1d972a8,0:edit:d71dfb8dcefc0dfe,-1:remoteDelete:11804c103722b8d7,0:sync:ed204935fa4fb1b6",
      bug: "a reconciliation that could not ask about an item set its anchor: a delete from before it never reached the index"),
    Case(
      seed: 416, script: "2:makeFolder:b85ac3059604fad0,0:create:58d7bb126649d5c2,0:sync:d4b01f85ad2e1764,0:edit:95e3800a008bebe4,1:makeFolder:be6549e8277d6062,-1:remoteDelete:e2c1c847438cad7c,0:create:a39512274dd44dbf,0:evict:6e8f22f9b27ca5fa,-1:remoteCreate:4f7367a2fe4857db,0:edit:9f2496737705e4d8,0:tag:1eed0753bd0ce81b:0.25,0:create:6bbe8228656db67,0:crash:15438564d90f8f5,0:sync:adb33b8250432ed6:0.25,-1:remoteEdit:1758d1ae2a577267",
      bug: "a create resumed after a crash re-sent its bytes over an edit made since, as an edit of that edit"),
    Case(
      seed: 592, script: "0:makeFolder:10ea8fd107aa271a,1:makeFolder:db0fa0104ed46b56,-1:remoteCreate:fc918541b117a4d6,1:edit:d5e9716cdaab0be8,0:edit:68a964f506e32f08,-1:remoteCreate:789aedd1c0910d3e,1:delete:7a082e1393a43d70,0:create:e08b86d475829b12,1:create:5ee10d4477537b16,1:sync:64d043215459ac7c",
      bug: "a file in a subfolder of a folder trashed elsewhere, the subfolder not indexed, read as live"),
    Case(
      seed: 1629, script: nil,
      bug: "a file used in a folder of a folder trashed elsewhere, learned in another order, read as live"),
    Case(seed: 13, script: nil, bug: "a full quota held downloads too: an open waited for ever (the seed's own 57 steps)"),
    Case(
      seed: 105171,
      script: "2:create:ef8d8d475ad8171b,0:create:4e96649a96525e46,2:sync:55b5f2c14c2e1129,0:edit:43fe33fbbd7466b2,-1:remoteRename:6174197c57122c25,0:edit:245d72e0fdf9802d,0:rename:30184a9700c9040b",
      bug: "path-keyed: a rename onto a stale row's path re-based that row's queued edit onto the moved item, and it was overwritten"),
    Case(
      seed: 104778,
      script: "2:sync:97306943f36585ff,2:create:114845a8a8de7c02,2:sync:9f5fee979ff8204a,1:rename:3464bafc1bf47f63,1:edit:357ac9c4560851c9,1:open:4739c7d951cc7efa,2:open:4c5f991ea115aa4,-1:remoteDelete:3a64cad22dba86c5,1:sync:188e825d56cc792a:0.25,2:delete:3c5588e0bdf22db7",
      bug: "a create resumed after a crash whose item was deleted elsewhere meanwhile failed for good, the original's edits dirty for ever"),
    Case(
      seed: 104933,
      script: "1:makeFolder:7cf805b501957d5b,-1:remoteCreate:57f7cd14134ff728,2:edit:1e8f7949250db10f,1:create:eb95473d595430b2,1:makeFolder:623c04bc5c11c974,0:edit:7f1c092f0b9e1b7d,1:rename:d18de826cdc7e407,-1:remoteEdit:f869c2c308d98f11,2:sync:89c321d97fc2dfb8,1:sync:4bc7a4384d7295e5,1:delete:a0829d5203a54540,1:rename:93b8a8d5b8425754,0:create:50ef93475c5db31e,0:edit:cae5a60947c719d1,-1:remoteCreate:4c04b094761865bf,0:sync:db3b0d9ab0397be8,0:rename:2c8f4938a6d798c3,-1:remoteCreate:69254ce696a37940,2:open:c86b1c5cd65ba6ec",
      bug: "a folder trashed elsewhere took by its stale path the files of the folder that had taken its name: one left Recents"),
    Case(
      seed: 100612,
      script: "0:create:a1752dd426d9e298,1:create:4c396261881c1b55,0:sync:3ba537d439ec2313:0.25,1:quotaFull:36521efe6af56682,-1:remoteCreate:f868aba71f2de661,1:restore:e5d3bac6e634fa36,1:sync:cd81bf01034a2af7,1:delete:d8c63f3e3ac4390a,1:create:1598124676a576f8,-1:remoteCreate:c39c653ccc6978bd,1:open:e3657c231db27da1,1:rename:66894a38e37f8840,1:edit:d23d476b2d9d21da,-1:remoteCreate:4fea005b9550baec,-1:remoteCreate:5d0356b2e58ffae6,-1:remoteCreate:acb8354fe5b2cd60,1:edit:206f5e46d155745c",
      bug: "a download whose answer was lost, under a full quota's latch, waited for that latch: an open waited for ever"),
    Case(
      seed: 100635,
      script: "-1:remoteCreate:787c495b1ebe7bb7,1:move:62735521f2ee6593,1:create:46cc15347bc781a1,1:edit:c957961b006e5554,1:create:907ca86ef10a726b,1:create:8851bf832b6d18f5,1:edit:51a31c0bf80361e,1:delete:f8465d325114fac6:0.25",
      bug: "path-keyed: edits queued for a deleted file went into a new file made at its path, and stayed dirty"),
    Case(seed: 129, script: nil, bug: "path-keyed: two alike files renamed elsewhere are held as ambiguous, not shown as an error"),
    Case(
      seed: 105745,
      script: "1:makeFolder:c86fd887caf00615,1:makeFolder:af17fa814d22eb8e,0:makeFolder:b9399bace3d0cb1f,-1:remoteCreate:a101e9093f830863,1:open:2b5d56ec697bfbef,1:delete:48b6b933c3c6caa4,0:delete:e2f277acaa3637a5,-1:remoteDelete:5d51f44694d90dd0,1:sync:def5e87de844bbf,1:restore:ad9f093c23628bfe",
      bug: "a file shown in a folder deleted and restored elsewhere though the server no longer had it (passes since the stale-path fix)"),
    Case(
      seed: 3459, script: nil,
      bug: "a conflict copy's lookup of its deleted original got a 503: the original's row stayed for ever (the lookup is retried now)"),
    Case(
      seed: 5537, script: nil,
      bug: "an open waiting for the sign-in its location asked for (the oracle: the person signs in, and the open must end)"),
    Case(
      seed: 150379, script: nil,
      bug: "a file moved out of a folder trashed here before the move was learned kept the trash mark and left Recents"),
    Case(
      seed: 112720,
      script: "-1:remoteCreate:437fab9b8cef644a,1:edit:bced9b94808e835b,1:create:34381a1c880bde85:0.25,1:create:39b88eaebb3b0385,1:edit:e5a20369c0893549,1:open:a95fd9de1ef268bd:0.25,0:delete:fb62c159adf2bdc7,1:crash:2dade8473f9ee248,1:sync:a57e1b25376290ab:0.25,1:sync:ed619d508214c31c:0.25,1:edit:1259ddbcbfed7d68,0:editThenCrash:1d0dbc45b406fda5",
      bug: "a crash after a created file's snapshot became its content: an edit in place changed the snapshot, and the resumed create was retried for ever"),
    Case(
      seed: 116964,
      script: "1:create:944cb6f19baa17e0,1:sync:f1265f63d1ac2f3e:0.25,1:edit:29a4648162df5de3,-1:remoteEdit:e34aaada970a58c5",
      bug: "path-keyed: the same, with a conflict copy whose create was cut short by a crash"),
    Case(
      seed: 161827,
      script: "2:makeFolder:26218cbd38a9d622,0:makeFolder:a75ca33d44f1143c,1:create:f990dd86f2dfc82a,-1:remoteCreate:998799c799079ccb,2:edit:e8c48edfaef17abe,-1:remoteEdit:78475b17f4bf0628,2:edit:56c60f9435e4dc79,2:edit:4340e65ef003448e,1:sync:bf044739a9c222c2,2:sync:1ba12fb6cc77a7ba,-1:remoteDelete:66292dd2f1d0a07f,1:move:1300b651e960d98e,2:delete:63c8fbfef58964f2:0.25",
      bug: "files of a folder the index did not keep kept their path and read as live when the folder moved into a folder trashed here"),
    Case(
      seed: 100956,
      script: "1:makeFolder:f785f78da2d988,2:makeFolder:52914913623e13f4,-1:remoteCreate:a4085dde3ee8ba85,-1:remoteCreate:2e60eac022b6bf16,2:makeFolder:310057903dc0bfe6,2:create:679a469c270fd226,2:makeFolder:123c2398fb3eaace,2:delete:7cfbc4db2f2df08d",
      bug: "(the fix of 161827) a change to such a folder, its own folder not indexed, took its files out of the trash a folder above it was in"),
    Case(
      seed: 193257,
      script: "1:makeFolder:fca96bd0b627b82b:0.25,1:makeFolder:c40f84db95be5c0c,1:sync:a377c443fac00a36,0:create:579db387b288b81f,0:create:5f58531258634608,1:makeFolder:7dff8faa2d9b8a3a,0:create:420c18cc8f972e0c,0:tag:9247b78317db20c6,0:sync:5ee9a70576cc0cf9,1:rename:bede930d5020b7bf,0:pin:e99042a20ccc8bc,0:makeFolder:64af057884e7da6d,0:makeFolder:1d594198e7a07aa,1:delete:6b3c2723eb227591",
      bug: "files of one folder the index did not keep, at two paths (one refreshed alone): trashing the folder above took only those at its old path"),
    Case(
      seed: 188905,
      script: "0:create:c418935ce7998929,0:crash:75500743c4466855,0:makeFolder:c1d0e9e96a2d3be4:0.25,0:sync:2a1f71f7e927129b,0:crash:22edfd138ad89aea,1:create:b5e9763db3c9fcaf,1:sync:36374a036c31a322,0:editThenCrash:1dc2925ae2602462,0:delete:c239d9cac3279359:0.25,0:edit:b346b08654a8d831",
      bug: "(the simulator) an error page served as a download was exactly as long as the file, which no storage without a hash can tell apart; an edit built on it was blamed on the engine"),
    Case(
      seed: 203161,
      script: "2:create:5b89235c356f32b6,0:create:e7a3ffccc53ae39f,0:create:1562cadb57fd13d6,0:sync:e12166a95b7261fb:0.25,0:create:65ecc3a5596cf6a5:0.25,0:create:7d9474686b19cdc7,0:create:a52a008d58148ba1,2:create:b8710233af868102,2:create:9eedea6d1362d5c5,1:sync:7482ce1962ac3bdc,0:makeFolder:5c59908cf7014a5,0:sync:a3ca88272ecfcd05,1:makeFolder:174601107b8dd2e3,2:create:5434c52420c4023f,2:sync:c3eb34ebb326510d,2:create:911c206f5bb89282,2:makeFolder:2c66f98ed22c6dca,2:sync:eb77556508030ee7,1:rename:365e019a5b394131,-1:remoteDelete:4f423535eb1e6a98",
      bug: "a file two levels down in folders the index did not keep: the top folder renamed and trashed elsewhere came as one change naming its last path, and the file kept a path that was gone"),
    Case(
      seed: 258670,
      script: "2:create:50c2bae9f6517dd3,2:sync:586ab738a86c571c,0:create:4c1e983cbd4359a7,2:create:2b17a6c670dbf9f7,2:editThenCrash:1b84dcd7cbdd1a1f,2:open:b2f4f616efaacd0,0:sync:fa2edf5eb6b03f74:0.25,-1:remoteDelete:4206d2cd6b9db969,2:edit:545d81bec3c59d21,2:rename:66efafab220aba9f,2:delete:2e1939ba1c5e4ff4,2:sync:673737c0841da0b6,2:restore:4b2992186124d31b,-1:remoteDelete:51720997d5e809f1,-1:remoteDelete:712b6bf776857ea1,2:editThenCrash:95ae836d55703146",
      bug: "edits of a file trashed here kept as a new file removed its local copy though newer edits of it waited: restored and opened, it showed the server's older bytes, and an edit of those replaced the waiting one"),
  ]
}
