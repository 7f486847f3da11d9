%% logger: OTP 25's logging API, with the default handler's output as
%% `erl -noshell` prints it (`=ERROR REPORT==== Time ===` and the message),
%% written to stderr: a trace run keeps standard output for the program.
%% The primary level (notice unless set_primary_config/2 changes it)
%% decides what is printed. Module and application levels are accepted:
%% they only concern events that carry their module, which calls without
%% logger.hrl's macros do not (the macros need an OTP header the engine
%% does not have). Handlers cannot be added, removed or configured.
-module(logger).
-export([emergency/1, emergency/2, emergency/3, alert/1, alert/2, alert/3,
         critical/1, critical/2, critical/3, error/1, error/2, error/3,
         warning/1, warning/2, warning/3, notice/1, notice/2, notice/3,
         info/1, info/2, info/3, debug/1, debug/2, debug/3, log/2, log/3,
         log/4, allow/2, macro_log/3, macro_log/4, macro_log/5,
         set_primary_config/1, set_primary_config/2, get_primary_config/0,
         update_primary_config/1, set_module_level/2, unset_module_level/0,
         unset_module_level/1, get_module_level/0, get_module_level/1,
         set_application_level/2, unset_application_level/1,
         set_process_metadata/1, update_process_metadata/1,
         unset_process_metadata/0, get_process_metadata/0, add_handler/3,
         remove_handler/1, set_handler_config/2, set_handler_config/3,
         update_handler_config/2, update_handler_config/3,
         get_handler_config/0, get_handler_config/1, get_handler_ids/0,
         add_primary_filter/2, remove_primary_filter/1, get_config/0,
         compare_levels/2, format_report/1]).
-export([print/4, report_text/2]).

emergency(A) -> do_log(emergency, [A]).
emergency(A, B) -> do_log(emergency, [A, B]).
emergency(A, B, C) -> do_log(emergency, [A, B, C]).
alert(A) -> do_log(alert, [A]).
alert(A, B) -> do_log(alert, [A, B]).
alert(A, B, C) -> do_log(alert, [A, B, C]).
critical(A) -> do_log(critical, [A]).
critical(A, B) -> do_log(critical, [A, B]).
critical(A, B, C) -> do_log(critical, [A, B, C]).
error(A) -> do_log(error, [A]).
error(A, B) -> do_log(error, [A, B]).
error(A, B, C) -> do_log(error, [A, B, C]).
warning(A) -> do_log(warning, [A]).
warning(A, B) -> do_log(warning, [A, B]).
warning(A, B, C) -> do_log(warning, [A, B, C]).
notice(A) -> do_log(notice, [A]).
notice(A, B) -> do_log(notice, [A, B]).
notice(A, B, C) -> do_log(notice, [A, B, C]).
info(A) -> do_log(info, [A]).
info(A, B) -> do_log(info, [A, B]).
info(A, B, C) -> do_log(info, [A, B, C]).
debug(A) -> do_log(debug, [A]).
debug(A, B) -> do_log(debug, [A, B]).
debug(A, B, C) -> do_log(debug, [A, B, C]).

log(Level, A) -> check_level(Level), do_log(Level, [A]).
log(Level, A, B) -> check_level(Level), do_log(Level, [A, B]).
log(Level, A, B, C) -> check_level(Level), do_log(Level, [A, B, C]).

macro_log(_Location, Level, A) -> log(Level, A).
macro_log(_Location, Level, A, B) -> log(Level, A, B).
macro_log(_Location, Level, A, B, C) -> log(Level, A, B, C).

check_level(Level) ->
    case severity(Level) of
        undefined -> erlang:error(badarg);
        _ -> ok
    end.

%% The call forms: (String | Report), (String | Report, Metadata),
%% (Format, Args), (Format, Args, Metadata), and funs making the message.
do_log(Level, Args) ->
    case allow(Level, undefined) of
        false -> ok;
        true -> print(Level, message(Args), metadata(Args), undefined)
    end.

message([Fun, FunArgs | _]) when is_function(Fun, 1) ->
    case Fun(FunArgs) of
        {Format, FArgs} when is_list(FArgs) -> {Format, FArgs};
        {Report, _Meta} -> {report, Report};
        Report -> {report, Report}
    end;
message([Format, FArgs | _]) when is_list(FArgs), not is_map(Format) ->
    {Format, FArgs};
message([Report | _]) when is_map(Report) -> {report, Report};
message([String | _]) when is_list(String); is_binary(String) ->
    case io_lib:printable_unicode_list(chars(String)) of
        true -> {string, String};
        false -> {report, String}
    end;
message([Other | _]) -> {report, Other}.

chars(B) when is_binary(B) -> unicode:characters_to_list(B);
chars(L) -> try lists:flatten(L) catch _:_ -> L end.

metadata([_, Meta]) when is_map(Meta) -> Meta;
metadata([_, _, Meta]) when is_map(Meta) -> Meta;
metadata(_) -> #{}.

%% Writes one event as the default handler would. Title: the report's own
%% (crash and supervisor reports name theirs), else the level's.
print(Level, Msg, Meta, Title0) ->
    Title = case Title0 of
                undefined -> title(Level, Meta);
                T -> T
            end,
    Body = try report_text(Msg, Meta)
           catch C:R -> io_lib:format("FORMAT ERROR: ~tp - ~tp", [C, R])
           end,
    trace_prelude:report(Title, [Body, $\n]),
    ok.

title(Level, Meta) ->
    case Meta of
        #{logger_formatter := #{title := T}} -> T;
        #{error_logger := #{tag := Tag}} -> legacy_title(Tag, Level);
        _ -> level_title(Level)
    end.

legacy_title(info_msg, _) -> "INFO REPORT";
legacy_title(info_report, _) -> "INFO REPORT";
legacy_title(warning_msg, _) -> "WARNING REPORT";
legacy_title(warning_report, _) -> "WARNING REPORT";
legacy_title(error, _) -> "ERROR REPORT";
legacy_title(error_report, _) -> "ERROR REPORT";
legacy_title(_, Level) -> level_title(Level).

level_title(Level) ->
    string:uppercase(atom_to_list(Level)) ++ " REPORT".

report_text({string, S}, _Meta) -> S;
report_text({report, Report}, #{report_cb := Cb}) when is_function(Cb, 2) ->
    Cb(Report, #{depth => unlimited, chars_limit => unlimited,
                 single_line => false});
report_text({report, Report}, #{report_cb := Cb}) when is_function(Cb, 1) ->
    {Format, Args} = Cb(Report),
    io_lib:format(Format, Args);
report_text({report, Report}, _Meta) ->
    {Format, Args} = format_report(Report),
    io_lib:format(Format, Args);
report_text({Format, Args}, _Meta) ->
    io_lib:format(Format, Args).

%% A report without its own formatter: key-value pairs one per line.
format_report(Report) when is_map(Report) ->
    format_report(maps:to_list(Report));
format_report(Report) when is_list(Report) ->
    case io_lib:printable_unicode_list(chars(Report)) of
        true -> {"~ts", [Report]};
        false ->
            try {lists:flatten(lists:join("\n", [line_format(E) || E <- Report])),
                 lists:append([line_args(E) || E <- Report])}
            catch _:_ -> {"~tp", [Report]}
            end
    end;
format_report(Report) ->
    {"~tp", [Report]}.

line_format({_Tag, Data}) ->
    case is_string(Data) of
        true -> "    ~tp: ~ts";
        false -> "    ~tp: ~tp"
    end;
line_format(_) -> "    ~tp".

line_args({Tag, Data}) -> [Tag, Data];
line_args(Term) -> [Term].

is_string(Data) when is_list(Data), Data =/= [] ->
    io_lib:printable_unicode_list(Data);
is_string(_) -> false.

%%% Levels and configuration

severity(emergency) -> 0;
severity(alert) -> 1;
severity(critical) -> 2;
severity(error) -> 3;
severity(warning) -> 4;
severity(notice) -> 5;
severity(info) -> 6;
severity(debug) -> 7;
severity(_) -> undefined.

primary_level() ->
    case trace_prelude:store_get({logger, level}) of
        {ok, L} -> L;
        error -> notice
    end.

allow(Level, _Module) ->
    case primary_level() of
        none -> false;
        all -> true;
        Primary -> severity(Level) =< severity(Primary)
    end.

compare_levels(A, B) ->
    case {severity(A), severity(B)} of
        {undefined, _} -> erlang:error(badarg);
        {_, undefined} -> erlang:error(badarg);
        {X, X} -> eq;
        {X, Y} when X < Y -> gt;
        _ -> lt
    end.

valid_level(L) ->
    L =:= all orelse L =:= none orelse severity(L) =/= undefined.

set_primary_config(level, Level) ->
    case valid_level(Level) of
        true -> trace_prelude:store_put({logger, level}, Level);
        false -> {error, {invalid_level, Level}}
    end;
set_primary_config(Key, _Value) ->
    not_supported(io_lib:format("logger:set_primary_config/2 of ~tw", [Key])).

set_primary_config(Config) when is_map(Config) ->
    update_primary_config(maps:merge(#{level => notice}, Config)).

update_primary_config(Config) when is_map(Config) ->
    maps:fold(fun(level, L, ok) -> set_primary_config(level, L);
                 (filter_default, log, ok) -> ok;
                 (filters, [], ok) -> ok;
                 (metadata, M, ok) when M =:= #{} -> ok;
                 (K, _, ok) -> set_primary_config(K, undefined);
                 (_, _, Err) -> Err
              end, ok, Config).

get_primary_config() ->
    #{level => primary_level(), filter_default => log, filters => [],
      metadata => #{}}.

get_config() ->
    #{primary => get_primary_config(), handlers => [get_handler_config()],
      module_levels => [], proxy => #{}}.

%% Module and application levels (accepted; see the header comment).
set_module_level(Modules, Level) when is_list(Modules); is_atom(Modules) ->
    case valid_level(Level) of
        true -> ok;
        false -> {error, {invalid_level, Level}}
    end.
unset_module_level() -> ok.
unset_module_level(_Modules) -> ok.
get_module_level() -> [].
get_module_level(_Modules) -> [].
set_application_level(App, Level) when is_atom(App) ->
    case valid_level(Level) of
        true -> ok;
        false -> {error, {invalid_level, Level}}
    end.
unset_application_level(App) when is_atom(App) -> ok.

set_process_metadata(Meta) when is_map(Meta) ->
    put('$logger_metadata$', Meta), ok.
update_process_metadata(Meta) when is_map(Meta) ->
    set_process_metadata(maps:merge(get_process_metadata(), Meta)).
unset_process_metadata() -> erase('$logger_metadata$'), ok.
get_process_metadata() ->
    case get('$logger_metadata$') of
        undefined -> #{};
        M -> M
    end.

get_handler_config() ->
    #{id => default, module => logger_std_h, level => all,
      filter_default => stop, filters => [], formatter => {logger_formatter, #{}},
      config => #{type => standard_error}}.
get_handler_config(default) -> {ok, get_handler_config()};
get_handler_config(Id) -> {error, {not_found, Id}}.
get_handler_ids() -> [default].

add_handler(_, _, _) -> not_supported("logger:add_handler/3 (logger handlers)").
remove_handler(_) -> not_supported("logger:remove_handler/1 (logger handlers)").
set_handler_config(_, _) -> not_supported("logger:set_handler_config/2 (logger handlers)").
set_handler_config(_, _, _) -> not_supported("logger:set_handler_config/3 (logger handlers)").
update_handler_config(_, _) -> not_supported("logger:update_handler_config/2 (logger handlers)").
update_handler_config(_, _, _) -> not_supported("logger:update_handler_config/3 (logger handlers)").
add_primary_filter(_, _) -> not_supported("logger:add_primary_filter/2 (logger filters)").
remove_primary_filter(_) -> not_supported("logger:remove_primary_filter/1 (logger filters)").

not_supported(What) -> trace_prelude:unsupported(What).
